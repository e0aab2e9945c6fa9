package dev.tickwheel.client.model;

import com.fasterxml.jackson.annotation.JsonEnumDefaultValue;

/**
 * How a job makes instances: on a cron expression, at a fixed rate, a fixed delay after each run, once, or
 * only when asked through the API.
 *
 * <p>{@link #UNKNOWN} stands for a value this client does not know (a newer server's); it is never sent.
 */
public enum ScheduleType {
    CRON,
    FIXED_RATE,
    FIXED_DELAY,
    ONE_SHOT,
    API,
    /** A value this version of the client does not know. */
    @JsonEnumDefaultValue
    UNKNOWN
}
