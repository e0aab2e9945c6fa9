package dev.tickwheel.client.model;

import java.time.Instant;

/**
 * An API token as the server shows it. Its secret is in the answer to its creation only
 * ({@code client.tokens().create}): the server keeps a hash of it and cannot show it again.
 *
 * <p>Immutable. {@link #toString()} never shows the secret, so a logged token does not leak it.
 *
 * @param id         its ID
 * @param name       its name, unique on the server; the audit trail names it
 * @param namespace  the one namespace it may act in, or null for every namespace
 * @param role       what it may do
 * @param createdAt  when it was created
 * @param expiresAt  when it stops working, or null for never
 * @param revokedAt  when it was revoked, or null
 * @param lastUsedAt when it was last used, to the minute, or null
 * @param active     neither revoked nor expired
 * @param secret     the bearer token to send ({@code tw_…}), in the creation's answer only; null elsewhere
 */
public record Token(long id, String name, String namespace, Role role, Instant createdAt, Instant expiresAt,
                    Instant revokedAt, Instant lastUsedAt, boolean active, String secret) {

    @Override
    public String toString() {
        return "Token[id=" + id + ", name=" + name + ", namespace=" + namespace + ", role=" + role + ", createdAt="
                + createdAt + ", expiresAt=" + expiresAt + ", revokedAt=" + revokedAt + ", lastUsedAt=" + lastUsedAt
                + ", active=" + active + ", secret=" + (secret == null ? null : "***") + "]";
    }
}
