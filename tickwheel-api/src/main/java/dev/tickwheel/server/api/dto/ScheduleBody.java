package dev.tickwheel.server.api.dto;

import java.time.Instant;

/**
 * A schedule on the wire: {@code {"type": "CRON", "expression": "0/5 * * * * ?", "zone": "UTC"}}. Which fields each
 * type uses is listed on {@link dev.tickwheel.time.ScheduleSpec}; {@code zone} is its {@code zoneId}.
 *
 * <p>Immutable.
 *
 * @param type       CRON, FIXED_RATE, FIXED_DELAY, ONE_SHOT or API (case-insensitive on input)
 * @param expression Quartz cron expression with seconds (CRON)
 * @param zone       time-zone id (CRON; default UTC)
 * @param periodMs   period in milliseconds (FIXED_RATE)
 * @param delayMs    delay after completion in milliseconds (FIXED_DELAY)
 * @param at         trigger instant (ONE_SHOT) or first trigger (FIXED_RATE)
 */
public record ScheduleBody(String type, String expression, String zone, Long periodMs, Long delayMs, Instant at) {
}
