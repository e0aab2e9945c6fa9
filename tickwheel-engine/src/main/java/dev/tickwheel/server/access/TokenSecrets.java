package dev.tickwheel.server.access;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;

/**
 * Token secrets: made from 256 random bits, stored only as their SHA-256.
 *
 * <p>Why a fast hash and not a password hash (bcrypt, scrypt): a token is not chosen by a person; with 256 bits of
 * entropy, guessing one from its hash is as hard as guessing it, so slowing the hash down buys nothing, and it would
 * cost every API call a few milliseconds. The lookup is by the hash (a unique index), so no secret is compared in
 * variable time either.
 *
 * <p>Thread-safe.
 */
public final class TokenSecrets {

    /** What every secret starts with, so that one leaked in a log or a repository is recognisable. */
    public static final String PREFIX = "tw_";
    private static final int RANDOM_BYTES = 32;
    private static final SecureRandom RANDOM = new SecureRandom();

    private TokenSecrets() {
    }

    /** A new secret: {@value #PREFIX} and 43 URL-safe base64 characters. */
    public static String newSecret() {
        byte[] bytes = new byte[RANDOM_BYTES];
        RANDOM.nextBytes(bytes);
        return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** The stored form of {@code secret}: its SHA-256 in lower-case hex. */
    public static String hash(String secret) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(secret.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
