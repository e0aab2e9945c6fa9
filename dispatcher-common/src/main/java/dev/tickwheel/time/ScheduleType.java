package dev.tickwheel.time;

/**
 * How a job produces instances.
 *
 * <p>Immutable.
 */
public enum ScheduleType {
    /** Quartz cron syntax with seconds, evaluated in an explicit time zone. */
    CRON,
    /** Instances at {@code start + k * period}; a slow run never shifts later instances. */
    FIXED_RATE,
    /** The next instance is due {@code delay} after the previous instance completed. */
    FIXED_DELAY,
    /** A single instance at one instant. */
    ONE_SHOT,
    /** No schedule: instances are created only on demand, with an optional delay. */
    API
}
