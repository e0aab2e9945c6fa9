package dev.tickwheel.server.api.dto;

import java.time.Instant;

/**
 * A token to create: {@code {"name": "ci", "namespace": "payments", "role": "OPERATE", "expiresAt": "..."}}.
 *
 * <p>Immutable.
 *
 * @param name      1..100 characters, unique on the server; shown in the audit trail
 * @param namespace the one namespace it may act in; absent for every namespace (only a token of every namespace may
 *                  create one)
 * @param role      READ, OPERATE or ADMIN
 * @param expiresAt when it stops working; absent for never
 */
public record TokenRequest(String name, String namespace, String role, Instant expiresAt) {
}
