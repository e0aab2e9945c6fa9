package dev.tickwheel.bench.cluster;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How much work PostgreSQL did, read from its statistics views, so that a run can say what one dispatched instance
 * costs the database.
 *
 * <ul>
 *   <li><b>statements</b>, from {@code pg_stat_statements} ({@code sum(calls)} for this database), only when the
 *       extension is in {@code shared_preload_libraries} (this class never changes the server's configuration; it
 *       runs {@code CREATE EXTENSION IF NOT EXISTS} and nothing else);
 *   <li>otherwise <b>transactions</b>, from {@code pg_stat_database} ({@code xact_commit + xact_rollback}): each
 *       auto-commit statement is one, a multi-statement transaction is one too, so they are a lower bound on
 *       statements, labelled as transactions;
 *   <li>both are database-wide (they count any other client of the same database); the <b>rows</b> read from
 *       {@code pg_stat_user_tables} are the run's schema's alone: inserted, updated, deleted, and index and sequential
 *       scans started.
 * </ul>
 *
 * <p>The cumulative statistics reach the views when a backend flushes them (at transaction end, at most once a second,
 * and when it exits), so take the second reading after the servers have stopped.
 *
 * <p>Immutable (a reading); {@link #read} opens its own connection.
 *
 * @param statementsCounted true if {@code statements} comes from pg_stat_statements, false if it is transactions
 * @param statements        see above (database-wide)
 * @param schemaCounters    the schema's counters by name: {@code inserted}, {@code updated}, {@code deleted},
 *                          {@code idxScans}, {@code seqScans}, the database-wide {@code dbRowsReturned},
 *                          {@code dbRowsFetched}, and the server-wide {@code walBytes} (WAL written)
 */
public record DatabaseActivity(boolean statementsCounted, long statements, Map<String, Long> schemaCounters) {

    public DatabaseActivity {
        schemaCounters = Map.copyOf(schemaCounters);
    }

    /** Whether pg_stat_statements can be read: loaded at server start, extension created in this database. */
    static boolean statementsAvailable(String jdbcUrl) {
        try (Connection c = DriverManager.getConnection(jdbcUrl); Statement s = c.createStatement()) {
            String preload;
            try (ResultSet rs = s.executeQuery("SHOW shared_preload_libraries")) {
                preload = rs.next() ? rs.getString(1) : "";
            }
            if (preload == null || !preload.contains("pg_stat_statements")) {
                return false;
            }
            s.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    /** Reads the counters now; {@code schema} selects the tables whose rows are counted. */
    static DatabaseActivity read(String jdbcUrl, String schema, boolean useStatements) {
        try (Connection c = DriverManager.getConnection(jdbcUrl)) {
            long statements;
            Map<String, Long> counters = new LinkedHashMap<>();
            try (Statement s = c.createStatement()) {
                s.execute("SELECT pg_stat_clear_snapshot()"); // no cached snapshot: read the shared counters now
                if (useStatements) {
                    try (ResultSet rs = s.executeQuery("SELECT coalesce(sum(calls), 0) FROM pg_stat_statements"
                            + " WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())")) {
                        rs.next();
                        statements = rs.getLong(1);
                    }
                } else {
                    statements = -1;
                }
                try (ResultSet rs = s.executeQuery("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint")) {
                    rs.next();
                    counters.put("walBytes", rs.getLong(1)); // the whole server's, like the transactions
                }
                try (ResultSet rs = s.executeQuery("SELECT xact_commit + xact_rollback, tup_returned, tup_fetched"
                        + " FROM pg_stat_database WHERE datname = current_database()")) {
                    rs.next();
                    if (!useStatements) {
                        statements = rs.getLong(1);
                    }
                    counters.put("dbRowsReturned", rs.getLong(2));
                    counters.put("dbRowsFetched", rs.getLong(3));
                }
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT coalesce(sum(n_tup_ins), 0),"
                    + " coalesce(sum(n_tup_upd), 0), coalesce(sum(n_tup_del), 0), coalesce(sum(idx_scan), 0),"
                    + " coalesce(sum(seq_scan), 0) FROM pg_stat_user_tables WHERE schemaname = ?")) {
                ps.setString(1, schema);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    counters.put("inserted", rs.getLong(1));
                    counters.put("updated", rs.getLong(2));
                    counters.put("deleted", rs.getLong(3));
                    counters.put("idxScans", rs.getLong(4));
                    counters.put("seqScans", rs.getLong(5));
                }
            }
            return new DatabaseActivity(useStatements, statements, counters);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read PostgreSQL's statistics: " + e.getMessage(), e);
        }
    }

    /** This reading minus an earlier one. */
    DatabaseActivity minus(DatabaseActivity earlier) {
        Map<String, Long> delta = new LinkedHashMap<>();
        schemaCounters.forEach((name, value) -> delta.put(name, value - earlier.schemaCounters.getOrDefault(name, 0L)));
        return new DatabaseActivity(statementsCounted, statements - earlier.statements, delta);
    }

    public long counter(String name) {
        return schemaCounters.getOrDefault(name, 0L);
    }

    /** {@code statements} or {@code transactions}, as {@link #statementsCounted} says. */
    public String statementsLabel() {
        return statementsCounted ? "statements" : "transactions";
    }
}
