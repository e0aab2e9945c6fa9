package dev.tickwheel.server.api.dto;

/**
 * A pool's rate on the wire: at most {@code permits} calls start in any {@code perMs} milliseconds.
 *
 * <p>Immutable.
 *
 * @param permits 1..1 000 000
 * @param perMs   1..86 400 000 (a day)
 */
public record RateBody(Integer permits, Long perMs) {
}
