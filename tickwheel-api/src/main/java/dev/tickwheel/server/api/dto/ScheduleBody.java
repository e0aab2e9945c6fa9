package dev.tickwheel.server.api.dto;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;

/**
 * A schedule on the wire: {@code {"type": "CRON", "expression": "0/5 * * * * ?", "zone": "UTC"}}. Which fields each
 * type uses is listed on {@link dev.tickwheel.time.ScheduleSpec}; {@code zone} is its {@code zoneId}.
 *
 * <p>Answers leave out the window and jitter fields a schedule does not use.
 *
 * <p>Immutable.
 *
 * @param type       CRON, FIXED_RATE, FIXED_DELAY, ONE_SHOT or API (case-insensitive on input)
 * @param expression Quartz cron expression with seconds (CRON)
 * @param zone       time-zone id (CRON; default UTC)
 * @param periodMs   period in milliseconds (FIXED_RATE)
 * @param delayMs    delay after completion in milliseconds (FIXED_DELAY)
 * @param at         trigger instant (ONE_SHOT) or first trigger (FIXED_RATE)
 * @param jitterMs   CRON and FIXED_RATE: each instance fires up to this many ms after its trigger time
 * @param spread     with jitterMs: one offset per job instead of one per trigger
 * @param startAt    CRON and FIXED_RATE: no trigger before this
 * @param endAt      CRON and FIXED_RATE: no trigger after this
 * @param maxRuns    CRON and FIXED_RATE: at most this many instances from the schedule
 */
public record ScheduleBody(String type, String expression, String zone, Long periodMs, Long delayMs, Instant at,
        @JsonInclude(JsonInclude.Include.NON_NULL) Long jitterMs,
        @JsonInclude(JsonInclude.Include.NON_NULL) Boolean spread,
        @JsonInclude(JsonInclude.Include.NON_NULL) Instant startAt,
        @JsonInclude(JsonInclude.Include.NON_NULL) Instant endAt,
        @JsonInclude(JsonInclude.Include.NON_NULL) Integer maxRuns) {
}
