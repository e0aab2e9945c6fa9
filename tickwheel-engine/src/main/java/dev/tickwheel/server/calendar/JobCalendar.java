package dev.tickwheel.server.calendar;

import dev.tickwheel.server.access.Namespaces;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.Collections;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * A named calendar of excluded days: a trigger time whose date, in the calendar's zone, is one of
 * {@code excludedDates} or falls on one of {@code excludedWeekdays} is skipped (no instance, not a misfire). The date is
 * taken in the calendar's zone, whatever the job's cron zone, so a day of 23 or 25 hours (a daylight-saving change)
 * excludes exactly its own hours.
 *
 * <p>Immutable. A refused value's message starts with the name of its field.
 *
 * @param name             its {@linkplain Namespaces#qualified qualified name}: a local name of
 *                         1..{@value #MAX_NAME_LENGTH} letters, digits, '.', '_' and '-', after {@code <namespace>/}
 *                         outside the default namespace
 * @param zone             the zone the dates are days of
 * @param excludedDates    days excluded, at most {@value #MAX_DATES}
 * @param excludedWeekdays days of the week excluded
 * @param createdAt        when it was stored
 */
public record JobCalendar(String name, ZoneId zone, SortedSet<LocalDate> excludedDates,
                          Set<DayOfWeek> excludedWeekdays, Instant createdAt) {

    /** Longest local name (the store's column holds a namespace, '/' and this). */
    public static final int MAX_NAME_LENGTH = Namespaces.MAX_LOCAL_NAME_LENGTH;
    /** Most excluded dates: ten years of days. */
    public static final int MAX_DATES = 3660;

    public JobCalendar {
        Namespaces.checkQualified(name);
        Objects.requireNonNull(zone, "zone");
        excludedDates = Collections.unmodifiableSortedSet(new TreeSet<>(excludedDates));
        if (excludedDates.size() > MAX_DATES) {
            throw new IllegalArgumentException("excludedDates must hold at most " + MAX_DATES + " dates: "
                    + excludedDates.size());
        }
        excludedWeekdays = Set.copyOf(excludedWeekdays);
        if (excludedWeekdays.size() == DayOfWeek.values().length) {
            throw new IllegalArgumentException("excludedWeekdays excludes every day of the week: nothing would run");
        }
        Objects.requireNonNull(createdAt, "createdAt");
    }

    /** Whether a trigger at {@code time} is skipped. */
    public boolean excludes(Instant time) {
        LocalDate date = LocalDate.ofInstant(time, zone);
        return excludedWeekdays.contains(date.getDayOfWeek()) || excludedDates.contains(date);
    }

    /** The namespace it belongs to. */
    public String namespace() {
        return Namespaces.namespaceOfQualified(name);
    }

    /** Its name within its namespace: what the API shows and jobs of the namespace name. */
    public String localName() {
        return Namespaces.localName(name);
    }
}
