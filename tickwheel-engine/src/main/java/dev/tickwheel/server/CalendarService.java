package dev.tickwheel.server;

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
     * Stores a calendar unless its name is taken.
     *
     * @return the calendar as stored (or the existing one, with {@link Creation#NAME_TAKEN})
     * @throws IllegalArgumentException if a field is invalid (see {@link JobCalendar})
     */
    public Result create(String name, ZoneId zone, Collection<LocalDate> excludedDates,
            Collection<DayOfWeek> excludedWeekdays) {
        Instant now = Instant.ofEpochMilli(clock.millis());
        JobCalendar calendar = new JobCalendar(name, zone, new TreeSet<>(excludedDates), Set.copyOf(excludedWeekdays),
                now);
        if (calendars.insert(calendar)) {
            return new Result(calendar, Creation.CREATED);
        }
        return new Result(calendars.get(name).orElse(calendar), Creation.NAME_TAKEN);
    }

    /**
     * Replaces the zone, dates and weekdays of calendar {@code name}; its creation time stays. Instances already
     * created are not touched.
     *
     * @return the calendar as stored, or empty if there is none of that name
     * @throws IllegalArgumentException if a field is invalid (see {@link JobCalendar})
     */
    public Optional<JobCalendar> replace(String name, ZoneId zone, Collection<LocalDate> excludedDates,
            Collection<DayOfWeek> excludedWeekdays) {
        Optional<JobCalendar> current = calendars.get(name);
        if (current.isEmpty()) {
            return Optional.empty();
        }
        JobCalendar replaced = new JobCalendar(name, zone, new TreeSet<>(excludedDates), Set.copyOf(excludedWeekdays),
                current.get().createdAt());
        return calendars.replace(replaced) ? Optional.of(replaced) : Optional.empty();
    }

    /** A calendar and whether {@link #create} stored it. */
    public record Result(JobCalendar calendar, Creation creation) {
    }

    public Optional<JobCalendar> get(String name) {
        return calendars.get(name);
    }

    /** Every calendar, by name. */
    public List<JobCalendar> list() {
        return calendars.list();
    }

    /** Deletes the calendar unless a job names it. */
    public CalendarStore.Deletion delete(String name) {
        return calendars.delete(name);
    }
}
