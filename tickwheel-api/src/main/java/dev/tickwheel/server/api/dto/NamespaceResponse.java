package dev.tickwheel.server.api.dto;

import java.time.Instant;

/** A namespace as the API shows it. Immutable. */
public record NamespaceResponse(String name, Instant createdAt) {
}
