package dev.tickwheel.client.model;

/**
 * Who the client's token is, as {@code GET /api/whoami} answers.
 *
 * <p>Immutable.
 *
 * @param name      the token's name: {@code bootstrap} for the server's {@code --token}, {@code anonymous} on a
 *                  server without tokens
 * @param namespace the one namespace it may act in, or null for every namespace
 * @param role      what it may do
 */
public record Caller(String name, String namespace, Role role) {
}
