package dev.tickwheel.client.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * The new time of a waiting instance: after {@code delayMs} from the server's now, or at {@code at}; optionally new
 * params (null keeps its own).
 *
 * <p>Immutable. Start from {@link #after(Duration)} or {@link #at(Instant)}.
 *
 * @param delayMs milliseconds from now, 0..31 622 400 000, or null
 * @param at      the new due time (a past instant runs now), or null
 * @param params  new parameters, or null to keep the instance's own
 */
@JsonInclude(JsonInclude.Include.NON_NULL) // an absent field takes the server's default
public record RescheduleRequest(Long delayMs, Instant at, Object params) {

    public RescheduleRequest {
        if ((delayMs == null) == (at == null)) {
            throw new IllegalArgumentException("give exactly one of delayMs and at, got " + delayMs + " and " + at);
        }
        if (delayMs != null && delayMs < 0) {
            throw new IllegalArgumentException("delayMs must not be negative: " + delayMs);
        }
    }

    /** Due {@code delay} after the server takes the call. */
    public static RescheduleRequest after(Duration delay) {
        return new RescheduleRequest(delay.toMillis(), null, null);
    }

    /** Due at {@code at}. */
    public static RescheduleRequest at(Instant at) {
        return new RescheduleRequest(null, Objects.requireNonNull(at, "at"), null);
    }

    /** This request with new {@code params} for the instance. */
    public RescheduleRequest withParams(Object params) {
        return new RescheduleRequest(delayMs, at, params);
    }

    /**
     * Whether repeating it asks for the same thing: a reschedule to an instant does; one by a delay moves the instance
     * to "now + delay" again, later each time.
     */
    public boolean absolute() {
        return at != null;
    }
}
