package dev.tickwheel.server.api.dto;

/**
 * A namespace to create: {@code {"name": "payments"}}.
 *
 * <p>Immutable.
 *
 * @param name 1..64 lower-case letters, digits and '-' (not first or last)
 */
public record NamespaceRequest(String name) {
}
