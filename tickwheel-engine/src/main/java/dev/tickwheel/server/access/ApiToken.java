package dev.tickwheel.server.access;

import java.time.Instant;
import java.util.Objects;

/**
 * An API token as stored: everything but its secret, of which the store keeps only a hash ({@link TokenSecrets}).
 *
 * <p>Immutable.
 *
 * @param namespace  the one namespace it may act in, or null for every namespace
 * @param expiresAt  when it stops working, or null for never
 * @param revokedAt  when it was revoked, or null
 * @param lastUsedAt when it was last used (to the minute: see {@code AccessService}), or null
 */
public record ApiToken(long id, String name, String namespace, Role role, Instant createdAt, Instant expiresAt,
                       Instant revokedAt, Instant lastUsedAt) {

    /** Longest token name: the store's column width. */
    public static final int MAX_NAME_LENGTH = 100;

    public ApiToken {
        Objects.requireNonNull(name, "name");
        if (name.isBlank() || name.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("token name must be 1.." + MAX_NAME_LENGTH
                    + " characters and not blank, got '" + name + "'");
        }
        if (namespace != null) {
            Namespaces.check(namespace);
        }
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(createdAt, "createdAt");
    }

    /** True unless revoked or expired at {@code now}. */
    public boolean activeAt(Instant now) {
        return revokedAt == null && (expiresAt == null || now.isBefore(expiresAt));
    }
}
