package dev.tickwheel.server.api;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Set;

/**
 * Requires {@code Authorization: Bearer <token>} on every mutating request (POST, PUT, PATCH, DELETE); reads stay open.
 *
 * <p>The comparison runs in constant time: both sides are hashed with SHA-256 first, so that
 * {@link MessageDigest#isEqual} compares two equal-length arrays and neither the content nor the length of the token
 * leaks through timing.
 *
 * <p>Thread-safe (immutable).
 *
 * <p>Caveats: reads ({@code GET}) of jobs and instances are open even with a token, as the issue specifies; a
 * deployment that must hide job definitions needs a proxy in front.
 */
final class BearerTokenCheck {

    private static final Set<String> MUTATING = Set.of("POST", "PUT", "PATCH", "DELETE");
    private static final String PREFIX = "Bearer ";

    private final byte[] expectedDigest;
    private final Set<String> openPaths;
    private final Set<String> openPrefixes;

    /**
     * @param openPaths    paths that stay open to mutating requests too (the demo echo endpoint)
     * @param openPrefixes path prefixes that do, because their own credential is in the path (callback URLs)
     */
    BearerTokenCheck(String token, Set<String> openPaths, Set<String> openPrefixes) {
        if (token == null || token.isBlank()) {
            throw new IllegalArgumentException("token must not be blank: '" + token + "'");
        }
        this.expectedDigest = sha256(token);
        this.openPaths = Set.copyOf(openPaths);
        this.openPrefixes = Set.copyOf(openPrefixes);
    }

    /** A before-handler: throws 401 unless the request is a read, open, or carries the token. */
    void check(ApiExchange ctx) {
        if (!MUTATING.contains(ctx.method()) || openPaths.contains(ctx.path())
                || openPrefixes.stream().anyMatch(ctx.path()::startsWith)) {
            return;
        }
        String header = ctx.header("Authorization");
        if (header == null || !header.startsWith(PREFIX)) {
            throw new ApiException(401, "unauthorized",
                    "header 'Authorization' must be 'Bearer <token>' for " + ctx.method() + " requests");
        }
        if (!MessageDigest.isEqual(expectedDigest, sha256(header.substring(PREFIX.length()).trim()))) {
            throw new ApiException(401, "unauthorized", "header 'Authorization' carries a wrong token");
        }
    }

    private static byte[] sha256(String value) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
