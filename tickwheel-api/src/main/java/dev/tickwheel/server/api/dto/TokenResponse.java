package dev.tickwheel.server.api.dto;

import java.time.Instant;

/**
 * A token as the API shows it; its secret only in the answer to its creation.
 *
 * <p>Immutable.
 *
 * @param id         the token ID as a decimal string
 * @param namespace  the one namespace it may act in, or null for every namespace
 * @param lastUsedAt when it was last used, to the minute, or null
 * @param secret     the bearer token, in the creation's answer only (it is stored as a hash and cannot be shown
 *                   again); null elsewhere
 */
public record TokenResponse(String id, String name, String namespace, String role, Instant createdAt,
                            Instant expiresAt, Instant revokedAt, Instant lastUsedAt, boolean active, String secret) {
}
