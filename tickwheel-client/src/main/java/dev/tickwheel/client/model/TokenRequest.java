package dev.tickwheel.client.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.Objects;

/**
 * A token to create ({@code client.tokens().create}).
 *
 * <p>Immutable. Start from {@link #of(String, Role)}.
 *
 * @param name      1..100 characters, unique on the server (revoked tokens keep their names)
 * @param namespace the one namespace it may act in, or null for every namespace (only a token of every namespace
 *                  may create one)
 * @param role      what it may do
 * @param expiresAt when it stops working (in the future), or null for never
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TokenRequest(String name, String namespace, Role role, Instant expiresAt) {

    public TokenRequest {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank: " + (name == null ? null : "'" + name + "'"));
        }
        Objects.requireNonNull(role, "role");
        if (role == Role.UNKNOWN) {
            throw new IllegalArgumentException("role must be a value the server knows, got UNKNOWN");
        }
    }

    /** A token of every namespace named {@code name} with {@code role}, that never expires. */
    public static TokenRequest of(String name, Role role) {
        return new TokenRequest(name, null, role, null);
    }

    /** The same, acting in {@code namespace} only. */
    public TokenRequest inNamespace(String namespace) {
        return new TokenRequest(name, Objects.requireNonNull(namespace, "namespace"), role, expiresAt);
    }

    /** The same, working until {@code expiresAt}. */
    public TokenRequest expiresAt(Instant expiresAt) {
        return new TokenRequest(name, namespace, role, Objects.requireNonNull(expiresAt, "expiresAt"));
    }
}
