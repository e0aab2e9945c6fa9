package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.calendar.JobCalendar;
import dev.tickwheel.server.store.CalendarStore;
import dev.tickwheel.server.store.StoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * {@link CalendarStore} over {@code tw_calendar}: the dates and weekdays as comma-separated text (ISO dates, day
 * names). A job names its calendar in {@code tw_job.calendar_name}, a foreign key, so a calendar in use cannot be
 * deleted even by a delete that raced a job's creation.
 *
 * <p>Thread-safe (stateless apart from the runner).
 */
final class JdbcCalendarStore implements CalendarStore {

    static final String COLUMNS = "name, zone, excluded_dates, excluded_weekdays, created_at_ms";
    private static final String INSERT = "INSERT INTO tw_calendar (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?)";
    private static final String SELECT_BY_NAME = "SELECT " + COLUMNS + " FROM tw_calendar WHERE name = ?";
    private static final String REPLACE = "UPDATE tw_calendar SET zone = ?, excluded_dates = ?, excluded_weekdays = ?"
            + " WHERE name = ?";
    private static final String SELECT_ALL = "SELECT " + COLUMNS + " FROM tw_calendar ORDER BY name";
    private static final String DELETE_UNUSED = "DELETE FROM tw_calendar WHERE name = ?"
            + " AND NOT EXISTS (SELECT 1 FROM tw_job WHERE calendar_name = ?)";

    private final TransactionRunner runner;

    JdbcCalendarStore(TransactionRunner runner) {
        this.runner = runner;
    }

    @Override
    public boolean insert(JobCalendar calendar) {
        try {
            return insertIfAbsent(calendar);
        } catch (StoreException e) {
            if (DuplicateIds.isUniqueViolation(e.getCause())) {
                return false; // another caller created it between our read and our insert
            }
            throw e;
        }
    }

    private boolean insertIfAbsent(JobCalendar calendar) {
        return runner.inTransaction("insert calendar '" + calendar.name() + "'", connection -> {
            if (select(connection, calendar.name()).isPresent()) {
                return false;
            }
            try (PreparedStatement ps = connection.prepareStatement(INSERT)) {
                ps.setString(1, calendar.name());
                bindDays(ps, 2, calendar);
                ps.setLong(5, calendar.createdAt().toEpochMilli());
                ps.executeUpdate();
            }
            return true;
        });
    }

    @Override
    public boolean replace(JobCalendar calendar) {
        return runner.inTransaction("replace calendar '" + calendar.name() + "'", connection -> {
            try (PreparedStatement ps = connection.prepareStatement(REPLACE)) {
                bindDays(ps, 1, calendar);
                ps.setString(4, calendar.name());
                return ps.executeUpdate() == 1;
            }
        });
    }

    /** Binds zone, dates and weekdays into parameters {@code first} to {@code first + 2}. */
    private static void bindDays(PreparedStatement ps, int first, JobCalendar calendar) throws SQLException {
        ps.setString(first, calendar.zone().getId());
        ps.setString(first + 1, calendar.excludedDates().stream().map(LocalDate::toString)
                .collect(Collectors.joining(",")));
        ps.setString(first + 2, calendar.excludedWeekdays().stream().sorted().map(DayOfWeek::name)
                .collect(Collectors.joining(",")));
    }

    @Override
    public Optional<JobCalendar> get(String name) {
        return runner.autoCommit("read calendar '" + name + "'", connection -> select(connection, name));
    }

    @Override
    public List<JobCalendar> list() {
        return runner.autoCommit("list calendars", connection -> {
            List<JobCalendar> all = new ArrayList<>();
            try (PreparedStatement ps = connection.prepareStatement(SELECT_ALL); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    all.add(read(rs));
                }
            }
            return all;
        });
    }

    @Override
    public Deletion delete(String name) {
        return runner.inTransaction("delete calendar '" + name + "'", connection -> {
            try (PreparedStatement ps = connection.prepareStatement(DELETE_UNUSED)) {
                ps.setString(1, name);
                ps.setString(2, name);
                if (ps.executeUpdate() == 1) {
                    return Deletion.DELETED;
                }
            }
            return select(connection, name).isPresent() ? Deletion.IN_USE : Deletion.NOT_FOUND;
        });
    }

    private static Optional<JobCalendar> select(Connection connection, String name) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(SELECT_BY_NAME)) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(read(rs)) : Optional.empty();
            }
        }
    }

    private static JobCalendar read(ResultSet rs) throws SQLException {
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
