package dev.tickwheel.server;

import dev.tickwheel.server.access.Namespaces;
import dev.tickwheel.server.calendar.JobCalendar;
import dev.tickwheel.server.store.CalendarStore;
import java.time.Clock;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Named calendars of excluded days: a CRON or FIXED_RATE job that names one ({@code ScheduleSpec#calendar}) gets no
 * instance for its trigger times on those days. A replaced calendar applies to the triggers the loaders plan after
 * they next read it (within {@code CalendarCatalog.MAX_AGE}, 30 s); one that a job names cannot be deleted.
 *
 * <p>Thread-safe.
 */
public final class CalendarService {

    /** What {@link #create} did. */
    public enum Creation {
        CREATED,
        /** A calendar of the name exists: nothing was written. */
        NAME_TAKEN
    }

    private final CalendarStore calendars;
    private final Clock clock;

    CalendarService(CalendarStore calendars, Clock clock) {
        this.calendars = Objects.requireNonNull(calendars, "calendars");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Stores a calendar in {@code namespace} (which the caller has checked exists) unless its name is taken there.
     * Names are per namespace: two namespaces may each have a calendar {@code holidays}, and a job names those of its
     * own namespace only.
     *
     * @param name its local name
     * @return the calendar as stored (or the existing one, with {@link Creation#NAME_TAKEN})
     * @throws IllegalArgumentException if a field is invalid (see {@link JobCalendar})
     */
    public Result create(String namespace, String name, ZoneId zone, Collection<LocalDate> excludedDates,
            Collection<DayOfWeek> excludedWeekdays) {
        Instant now = Instant.ofEpochMilli(clock.millis());
        String qualified = Namespaces.qualified(namespace, name);
        JobCalendar calendar = new JobCalendar(qualified, zone, new TreeSet<>(excludedDates),
                Set.copyOf(excludedWeekdays), now);
        if (calendars.insert(calendar)) {
            return new Result(calendar, Creation.CREATED);
        }
        return new Result(calendars.get(qualified).orElse(calendar), Creation.NAME_TAKEN);
    }

    /**
     * Replaces the zone, dates and weekdays of calendar {@code name} of {@code namespace}; its creation time stays.
     * Instances already created are not touched.
     *
     * @return the calendar as stored, or empty if there is none of that name
     * @throws IllegalArgumentException if a field is invalid (see {@link JobCalendar})
     */
    public Optional<JobCalendar> replace(String namespace, String name, ZoneId zone,
            Collection<LocalDate> excludedDates, Collection<DayOfWeek> excludedWeekdays) {
        Optional<JobCalendar> current = get(namespace, name);
        if (current.isEmpty()) {
            return Optional.empty();
        }
        JobCalendar replaced = new JobCalendar(current.get().name(), zone, new TreeSet<>(excludedDates),
                Set.copyOf(excludedWeekdays), current.get().createdAt());
        return calendars.replace(replaced) ? Optional.of(replaced) : Optional.empty();
    }

    /** A calendar and whether {@link #create} stored it. */
    public record Result(JobCalendar calendar, Creation creation) {
    }

    /** Calendar {@code name} of {@code namespace}; empty for a name that is not a valid one. */
    public Optional<JobCalendar> get(String namespace, String name) {
        return Namespaces.isLocalName(name) ? calendars.get(Namespaces.qualified(namespace, name))
                : Optional.empty();
    }

    /** The calendars of {@code namespace} (null: of every namespace), by qualified name. */
    public List<JobCalendar> list(String namespace) {
        return calendars.list().stream()
                .filter(calendar -> namespace == null || calendar.namespace().equals(namespace))
                .toList();
    }

    /** Deletes calendar {@code name} of {@code namespace} unless a job names it. */
    public CalendarStore.Deletion delete(String namespace, String name) {
        return Namespaces.isLocalName(name) ? calendars.delete(Namespaces.qualified(namespace, name))
                : CalendarStore.Deletion.NOT_FOUND;
    }
}
