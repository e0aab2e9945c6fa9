package dev.tickwheel.server.store;

import dev.tickwheel.server.calendar.JobCalendar;
import java.util.List;
import java.util.Optional;

/**
 * Named calendars of excluded days ({@link JobCalendar}). A replaced calendar keeps its name and creation time; the
 * members' loaders see the change at their next read of it.
 *
 * <p>Implementations are thread-safe.
 */
public interface CalendarStore {

    /** What {@link #delete} did. */
    enum Deletion {
        DELETED,
        NOT_FOUND,
        /** Jobs still name it: nothing was deleted. */
        IN_USE
    }

    /** Stores the calendar unless one of its name exists; returns whether it was stored. */
    boolean insert(JobCalendar calendar);

    Optional<JobCalendar> get(String name);

    /** Replaces the zone, dates and weekdays of the calendar of {@code calendar}'s name; false if there is none. */
    boolean replace(JobCalendar calendar);

    /** Every calendar, by name. */
    List<JobCalendar> list();

    /** Deletes the calendar unless a job names it. */
    Deletion delete(String name);
}
