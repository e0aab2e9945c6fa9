package dev.tickwheel.server.api.dto;

import java.util.List;

/**
 * A calendar to create: {@code {"name": "holidays", "zone": "Europe/Berlin", "excludedDates": ["2026-12-25"],
 * "excludedWeekdays": ["SUNDAY"]}}.
 *
 * <p>Immutable.
 *
 * @param name             1..100 letters, digits, '.', '_' or '-'
 * @param zone             the time zone whose days the dates are (default UTC)
 * @param excludedDates    ISO dates (yyyy-mm-dd) on which the jobs naming this calendar do not run
 * @param excludedWeekdays days of the week (MONDAY..SUNDAY) on which they do not run
 * @param namespace        the namespace to create it in: a token of every namespace may name one (default
 *                         {@code default}); for a namespace's token, absent or its own
 */
public record CalendarRequest(String name, String zone, List<String> excludedDates, List<String> excludedWeekdays,
        String namespace) {
}
