package dev.tickwheel.server.api.dto;

/**
 * Who a request's token is: {@code GET /api/whoami}, which the console reads to show only what the role allows.
 *
 * <p>Immutable.
 *
 * @param name      the token's name ({@code anonymous} on a server without tokens)
 * @param namespace the one namespace it may act in, or null for every namespace
 * @param role      READ, OPERATE or ADMIN
 */
public record CallerResponse(String name, String namespace, String role) {
}
