package dev.tickwheel.server.access;

import java.time.Instant;
import java.util.Objects;

/**
 * A namespace as stored.
 *
 * <p>Immutable.
 */
public record Namespace(String name, Instant createdAt) {

    public Namespace {
        Namespaces.check(name);
        Objects.requireNonNull(createdAt, "createdAt");
    }
}
