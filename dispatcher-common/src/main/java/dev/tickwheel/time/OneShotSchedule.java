package dev.tickwheel.time;

import java.time.Instant;
import java.util.Optional;

/**
 * A single trigger at {@code at}: {@code nextAfter(after)} returns {@code at} while {@code after < at}, then
 * empty.
 *
 * <p>Immutable; thread-safe.
 *
 * <p>Caveats: an {@code at} in the past is accepted (a stored job may be reloaded after its time); whether
 * it still fires is the misfire policy's decision, see {@link MisfireResolver}.
 *
 * @param at the trigger time, inside the supported range
 */
public record OneShotSchedule(Instant at) implements PlannedExpression {

    /** @throws InvalidTimeExpressionException if {@code at} is missing or outside the supported range */
    public OneShotSchedule {
        SupportedRange.checkInstant(ScheduleSpec.FIELD_AT, at);
    }

    @Override
    public ScheduleType type() {
        return ScheduleType.ONE_SHOT;
    }

    @Override
    public Optional<Instant> nextAfter(Instant after) {
        return after.isBefore(at) ? Optional.of(at) : Optional.empty();
    }
}
