package dev.tickwheel.client.model;

import java.time.Instant;
import java.util.List;

/**
 * A calendar of excluded days: jobs (CRON and FIXED_RATE) that name it get no instance for their trigger times on
 * those days, in its zone.
 *
 * <p>Immutable.
 *
 * @param name             its name
 * @param zone             the time zone whose days the dates are
 * @param excludedDates    ISO dates (yyyy-mm-dd), ascending
 * @param excludedWeekdays days of the week (MONDAY..SUNDAY)
 * @param createdAt        when it was created
 * @param namespace        the namespace it belongs to: jobs of that namespace name it by its name
 */
public record Calendar(String name, String zone, List<String> excludedDates, List<String> excludedWeekdays,
        Instant createdAt, String namespace) {
}
