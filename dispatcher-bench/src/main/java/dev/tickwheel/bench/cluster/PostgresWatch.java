package dev.tickwheel.bench.cluster;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;

/**
 * Notices what other clients of a shared PostgreSQL server did to it during a measurement: a restart (the
 * postmaster's start time changed; the cluster tests restart PostgreSQL) or sessions of the database terminated by an
 * administrator ({@code pg_stat_database.sessions_killed}, PostgreSQL 14+). Either makes a take-over round or a
 * throughput run measure the outage, not the cluster; the report marks it and leaves it out of the medians.
 *
 * <p>Immutable (a reading).
 *
 * @param postmasterStart {@code pg_postmaster_start_time()} as text, or {@code "unreachable"}
 * @param sessionsKilled  {@code sessions_killed} of the database, or -1 where the server has no such column
 */
record PostgresWatch(String postmasterStart, long sessionsKilled) {

    private static final String UNREACHABLE = "unreachable";

    /** Reads now; a server that cannot be reached (being restarted) gives a reading that differs from any other. */
    static PostgresWatch read(String jdbcUrl) {
        try (Connection c = DriverManager.getConnection(jdbcUrl); Statement s = c.createStatement()) {
            String start;
            try (ResultSet rs = s.executeQuery("SELECT pg_postmaster_start_time()::text")) {
                rs.next();
                start = rs.getString(1);
            }
            long killed = -1;
            try (ResultSet rs = s.executeQuery("SELECT sessions_killed FROM pg_stat_database"
                    + " WHERE datname = current_database()")) {
                if (rs.next()) {
                    killed = rs.getLong(1);
                }
            } catch (SQLException noSuchColumn) {
                // before PostgreSQL 14: restarts are still seen
            }
            return new PostgresWatch(start, killed);
        } catch (SQLException e) {
            return new PostgresWatch(UNREACHABLE, -1);
        }
    }

    /** What happened between {@code earlier} and this reading, in a sentence; empty if nothing. */
    Optional<String> disturbedSince(PostgresWatch earlier) {
        if (postmasterStart.equals(UNREACHABLE) || earlier.postmasterStart.equals(UNREACHABLE)) {
            return Optional.of("PostgreSQL was unreachable");
        }
        if (!postmasterStart.equals(earlier.postmasterStart)) {
            return Optional.of("PostgreSQL was restarted (by another process) at " + postmasterStart);
        }
        if (sessionsKilled > earlier.sessionsKilled && earlier.sessionsKilled >= 0) {
            return Optional.of((sessionsKilled - earlier.sessionsKilled) + " sessions of the database were terminated"
                    + " by an administrator (another process)");
        }
        return Optional.empty();
    }
}
