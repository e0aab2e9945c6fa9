package dev.tickwheel.client.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * A calendar to create ({@code client.calendars().create}).
 *
 * <p>Immutable.
 *
 * @param name             1..100 letters, digits, '.', '_' or '-'
 * @param zone             the time zone whose days the dates are; null for UTC
 * @param excludedDates    ISO dates (yyyy-mm-dd)
 * @param excludedWeekdays days of the week (MONDAY..SUNDAY)
 * @param namespace        on a create, the namespace to make it in (for a token of every namespace; null: the
 *                         token's own, {@code default} for a token of every namespace); on a replace, null or the
 *                         calendar's
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CalendarRequest(String name, String zone, List<String> excludedDates, List<String> excludedWeekdays,
        String namespace) {

    public CalendarRequest {
        Objects.requireNonNull(name, "name");
    }

    /** A calendar of {@code dates} and {@code weekdays} in {@code zone}. */
    public static CalendarRequest of(String name, ZoneId zone, Collection<LocalDate> dates,
            Collection<DayOfWeek> weekdays) {
        return new CalendarRequest(name, zone.getId(), dates.stream().map(LocalDate::toString).toList(),
                weekdays.stream().map(DayOfWeek::name).toList(), null);
    }

    /** This calendar in {@code namespace} (a token of every namespace chooses; a namespace's token may give its own). */
    public CalendarRequest inNamespace(String namespace) {
        return new CalendarRequest(name, zone, excludedDates, excludedWeekdays, namespace);
    }
}
