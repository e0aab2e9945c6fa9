package dev.tickwheel.time;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * No schedule: instances are created only when a client asks for one, so there is never a next trigger.
 *
 * <p>Immutable; thread-safe.
 *
 * <p>Caveats: none; {@link #nextAfter} is always empty.
 */
public record ApiSchedule() implements TimeExpression {

    @Override
    public ScheduleType type() {
        return ScheduleType.API;
    }

    @Override
    public Optional<Instant> nextAfter(Instant after) {
        Objects.requireNonNull(after, "after");
        return Optional.empty();
    }
}
