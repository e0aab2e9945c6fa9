package dev.tickwheel.client.model;

import java.time.Instant;

/**
 * A namespace: one team's jobs and their instances. {@code default} always exists.
 *
 * <p>Immutable.
 *
 * @param name      its name
 * @param createdAt when it was created
 */
public record Namespace(String name, Instant createdAt) {
}
