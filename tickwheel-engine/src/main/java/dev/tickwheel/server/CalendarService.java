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
 * instance for its trigger times on those days. A calendar is not changed in place: create another and point the jobs
 * at it; one that a job names cannot be deleted.
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
