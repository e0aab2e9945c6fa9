package dev.tickwheel.client.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Duration;
import java.time.Instant;

/**
 * One run of a job: the body of {@code POST /api/jobs/{id}/run}, and an item of a batch. Due after {@code delayMs}
 * (default 0) or at {@code at}, never both.
 *
 * <p>With a {@code key} the run is safe to repeat: the key is the run's identity within its job, so the same key
 * again answers the instance the first call made ({@link RunResult#created()} false), whatever params or time the
 * repeat carries. The client retries only keyed runs (see {@link dev.tickwheel.client.TickwheelClient}).
 *
 * <p>Immutable. Start from {@link #now()}, {@link #after(Duration)} or {@link #at(Instant)}, then
 * {@link #withKey}, {@link #withParams}, {@link #withPriority}.
 *
 * @param key     the caller's key, 1..200 printable characters, or null for none
 * @param delayMs milliseconds from the server's now, 0..31 622 400 000, or null
 * @param at      the instant to run (a past one runs now), or null
 * @param params  any value Jackson can write, for this instance; null for none
 * @param priority 0..9, this run's priority when call slots are short (higher first); null for its job's
 */
@JsonInclude(JsonInclude.Include.NON_NULL) // an absent field takes the server's default
public record RunRequest(String key, Long delayMs, Instant at, Object params, Integer priority) {

    public RunRequest {
        if (key != null && key.isEmpty()) {
            throw new IllegalArgumentException("key must not be empty (null for none)");
        }
        if (delayMs != null && delayMs < 0) {
            throw new IllegalArgumentException("delayMs must not be negative: " + delayMs);
        }
        if (delayMs != null && at != null) {
            throw new IllegalArgumentException("give delayMs or at, not both: " + delayMs + " and " + at);
        }
        if (priority != null && (priority < 0 || priority > 9)) {
            throw new IllegalArgumentException("priority must be in 0..9: " + priority);
        }
    }

    /** A run due at once. */
    public static RunRequest now() {
        return new RunRequest(null, null, null, null, null);
    }

    /** A run due {@code delay} after the server takes the call. */
    public static RunRequest after(Duration delay) {
        return new RunRequest(null, delay.toMillis(), null, null, null);
    }

    /** A run due at {@code at}. */
    public static RunRequest at(Instant at) {
        return new RunRequest(null, null, at, null, null);
    }

    /** This run with the caller's {@code key}: safe to repeat. */
    public RunRequest withKey(String key) {
        return new RunRequest(key, delayMs, at, params, priority);
    }

    /** This run with {@code params} for its instance. */
    public RunRequest withParams(Object params) {
        return new RunRequest(key, delayMs, at, params, priority);
    }

    /** This run with its own {@code priority}, 0..9 (higher first when call slots are short). */
    public RunRequest withPriority(int priority) {
        return new RunRequest(key, delayMs, at, params, priority);
    }

    /** Whether the run has a key, which makes it safe to repeat. */
    public boolean keyed() {
        return key != null;
    }
}
