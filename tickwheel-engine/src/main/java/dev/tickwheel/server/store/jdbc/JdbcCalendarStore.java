package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.calendar.JobCalendar;
import dev.tickwheel.server.store.CalendarStore;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * {@link CalendarStore} over {@code tw_calendar} ({@link NamedRowTable}): the dates and weekdays as comma-separated
 * text (ISO dates, day names). A job names its calendar in {@code tw_job.calendar_name}, a foreign key, so a calendar
 * in use cannot be deleted even by a delete that raced a job's creation (on PostgreSQL; see {@link NamedRowTable}'s
 * caveat for H2).
 *
 * <p>Thread-safe (stateless apart from the runner).
 */
final class JdbcCalendarStore implements CalendarStore {

    private final NamedRowTable<JobCalendar> table;

    JdbcCalendarStore(TransactionRunner runner) {
        this.table = new NamedRowTable<>(runner, "calendar", "tw_calendar",
                List.of("zone", "excluded_dates", "excluded_weekdays"), "calendar_name", new Rows());
    }

    @Override
    public boolean insert(JobCalendar calendar) {
        return table.insert(calendar);
    }

    @Override
    public boolean replace(JobCalendar calendar) {
        return table.replace(calendar);
    }

    @Override
    public Optional<JobCalendar> get(String name) {
        return table.get(name);
    }

    @Override
    public List<JobCalendar> list() {
        return table.list();
    }

    @Override
    public Deletion delete(String name) {
        return switch (table.delete(name)) {
            case DELETED -> Deletion.DELETED;
            case NOT_FOUND -> Deletion.NOT_FOUND;
            case IN_USE -> Deletion.IN_USE;
        };
    }

    /** A calendar's columns: zone, dates and weekdays. */
    private static final class Rows implements NamedRowTable.Mapping<JobCalendar> {

        @Override
        public String name(JobCalendar calendar) {
            return calendar.name();
        }

        @Override
        public Instant createdAt(JobCalendar calendar) {
            return calendar.createdAt();
        }

        @Override
        public void bindValues(PreparedStatement ps, int first, JobCalendar calendar) throws SQLException {
            ps.setString(first, calendar.zone().getId());
            ps.setString(first + 1, calendar.excludedDates().stream().map(LocalDate::toString)
                    .collect(Collectors.joining(",")));
            ps.setString(first + 2, calendar.excludedWeekdays().stream().sorted().map(DayOfWeek::name)
                    .collect(Collectors.joining(",")));
        }

        @Override
        public JobCalendar read(ResultSet rs) throws SQLException {
            String dates = rs.getString("excluded_dates");
            String weekdays = rs.getString("excluded_weekdays");
            Set<DayOfWeek> days = EnumSet.noneOf(DayOfWeek.class);
            if (!weekdays.isEmpty()) {
                Arrays.stream(weekdays.split(",")).map(DayOfWeek::valueOf).forEach(days::add);
            }
            TreeSet<LocalDate> excluded = new TreeSet<>();
            if (!dates.isEmpty()) {
                Arrays.stream(dates.split(",")).map(LocalDate::parse).forEach(excluded::add);
            }
            return new JobCalendar(rs.getString("name"), ZoneId.of(rs.getString("zone")), excluded, days,
                    Instant.ofEpochMilli(rs.getLong("created_at_ms")));
        }
    }
}
