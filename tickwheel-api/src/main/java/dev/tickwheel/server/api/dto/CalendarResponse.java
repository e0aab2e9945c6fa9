package dev.tickwheel.server.api.dto;

import java.time.Instant;
import java.util.List;

/**
 * A stored calendar.
 *
 * <p>Immutable.
 *
 * @param name             its name
 * @param zone             the time zone whose days the dates are
 * @param excludedDates    ISO dates, ascending
 * @param excludedWeekdays days of the week, Monday first
 * @param createdAt        when it was created
 * @param namespace        the namespace it belongs to; its jobs are of that namespace
 */
public record CalendarResponse(String name, String zone, List<String> excludedDates, List<String> excludedWeekdays,
        Instant createdAt, String namespace) {
}
