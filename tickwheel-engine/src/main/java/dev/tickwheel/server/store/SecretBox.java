package dev.tickwheel.server.store;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Encrypts the store's secrets at rest with AES-256-GCM (the JDK's {@code AES/GCM/NoPadding}) under the current key
 * of {@link SecretKeys}, and decrypts them under whichever given key they name. Without a key, {@link #seal} keeps the
 * value as given, marked {@link #PLAIN}.
 *
 * <pre>
 *   stored  = "tw1:" + keyId + ":" + base64url(iv || ciphertext || tag)     (no padding)
 *   iv      = 12 random bytes, fresh for every value
 *   tag     = 16 bytes
 *   AAD     = "tw1:" + keyId + ":" + context     (context: column and row, e.g. "tw_job.signing_secret/42")
 * </pre>
 *
 * <p>The associated data binds a value to its place: a value copied to another row or column, or given another key
 * id, fails to decrypt instead of becoming that row's secret. A random IV makes two equal secrets store differently;
 * with 96-bit random IVs a key should seal fewer than 2^32 values (NIST SP 800-38D), far beyond any job table.
 *
 * <p>Thread-safe: a {@link Cipher} is made per call (they are not thread-safe); {@link SecureRandom} is.
 */
public final class SecretBox {

    /** The key id a value kept as given is marked with (a key id is 8 hex digits, so it cannot be one). */
    public static final String PLAIN = "plain";
    /** Without a key: values are kept as given. */
    public static final SecretBox NONE = new SecretBox(SecretKeys.NONE);

    private static final String VERSION = "tw1";
    private static final String TRANSFORMATION = "AES/GCM/NoPadding";
    private static final int IV_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final Pattern SEALED = Pattern.compile(VERSION + ":([0-9a-f]{8}):([A-Za-z0-9_-]+)");
    private static final SecureRandom RANDOM = new SecureRandom();

    private final SecretKeys keys;

    public SecretBox(SecretKeys keys) {
        this.keys = Objects.requireNonNull(keys, "keys");
    }

    /** A value as stored, and the key id it is stored under ({@link #PLAIN} without a key). */
    public record Sealed(String stored, String keyId) {
    }

    public SecretKeys keys() {
        return keys;
    }

    /** The key id a sealed form names, or empty if {@code stored} does not have the sealed form. */
    public static java.util.Optional<String> keyIdOf(String stored) {
        Matcher m = SEALED.matcher(stored);
        return m.matches() ? java.util.Optional.of(m.group(1)) : java.util.Optional.empty();
    }

    /** Whether a stored value has the sealed form (it may still not open). */
    public static boolean isSealed(String stored) {
        return stored.startsWith(VERSION + ":");
    }

    /** {@code plain} encrypted under the current key for {@code context}; without a key, as given. */
    public Sealed seal(String plain, String context) {
        Objects.requireNonNull(plain, "plain");
        String keyId = keys.currentKeyId().orElse(null);
        if (keyId == null) {
            return new Sealed(plain, PLAIN);
        }
        byte[] iv = new byte[IV_BYTES];
        RANDOM.nextBytes(iv);
        byte[] sealed = run(Cipher.ENCRYPT_MODE, keys.key(keyId), iv, keyId, context,
                plain.getBytes(StandardCharsets.UTF_8));
        byte[] out = ByteBuffer.allocate(IV_BYTES + sealed.length).put(iv).put(sealed).array();
        return new Sealed(VERSION + ":" + keyId + ":" + Base64.getUrlEncoder().withoutPadding().encodeToString(out),
                keyId);
    }

    /**
     * The value a sealed form holds.
     *
     * @throws UnreadableSecretException if the form is not a sealed value, its key was not given, or it does not
     *                                   decrypt (altered, or sealed for another context)
     */
    public String open(String stored, String context) {
        Objects.requireNonNull(stored, "stored");
        Matcher m = SEALED.matcher(stored);
        if (!m.matches()) {
            throw new UnreadableSecretException("it is not an encrypted value (" + VERSION + ":<key id>:<base64url>,"
                    + " got " + stored.length() + " characters" + (isSealed(stored) ? " starting with " + VERSION
                    : "") + ")");
        }
        String keyId = m.group(1);
        SecretKeySpec key = keys.key(keyId);
        if (key == null) {
            throw new UnreadableSecretException("it is encrypted under key id " + keyId + ", which was not given ("
                    + keys + ")");
        }
        byte[] bytes;
        try {
            bytes = Base64.getUrlDecoder().decode(m.group(2));
        } catch (IllegalArgumentException e) {
            throw new UnreadableSecretException("its base64 is damaged (" + e.getMessage() + ")");
        }
        if (bytes.length < IV_BYTES + TAG_BITS / 8) {
            throw new UnreadableSecretException("it is too short to be encrypted: " + bytes.length + " bytes");
        }
        byte[] iv = java.util.Arrays.copyOf(bytes, IV_BYTES);
        byte[] sealed = java.util.Arrays.copyOfRange(bytes, IV_BYTES, bytes.length);
        return new String(run(Cipher.DECRYPT_MODE, key, iv, keyId, context, sealed), StandardCharsets.UTF_8);
    }

    private static byte[] run(int mode, SecretKeySpec key, byte[] iv, String keyId, String context, byte[] input) {
        try {
            Cipher cipher = Cipher.getInstance(TRANSFORMATION);
            cipher.init(mode, key, new GCMParameterSpec(TAG_BITS, iv));
            cipher.updateAAD((VERSION + ":" + keyId + ":" + context).getBytes(StandardCharsets.UTF_8));
            return cipher.doFinal(input);
        } catch (AEADBadTagException e) {
            throw new UnreadableSecretException("it does not decrypt under key id " + keyId + ": it was altered, or"
                    + " copied from another row");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(TRANSFORMATION + " is part of every Java platform, yet: " + e, e);
        }
    }
}
