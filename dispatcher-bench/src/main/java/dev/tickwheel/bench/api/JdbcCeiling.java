package dev.tickwheel.bench.api;

import dev.tickwheel.bench.api.LoadOperation.Outcome;
import dev.tickwheel.id.SnowflakeIdGenerator;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.Arrays;

/**
 * The ceiling: the statements the server runs for a run and a cancel, sent by bare JDBC (the PostgreSQL driver, no
 * Tickwheel class, no pool) on the server's own schema, so that each API figure can be compared with what the
 * database alone does on this machine.
 *
 * <pre>
 *   insert  BEGIN; SELECT id FROM tw_job WHERE id = ? FOR SHARE;
 *           [INSERT INTO tw_run_key (job_id, run_key, instance_id) VALUES (…) ON CONFLICT DO NOTHING  × rows, as one
 *           JDBC batch, on the partitioned schema (version 9) for a keyed run;]
 *           INSERT INTO tw_instance (…, run_key) VALUES (…, 'WAITING', …) [ON CONFLICT (job_id, run_key)
 *           WHERE run_key IS NOT NULL DO NOTHING, before version 9]  × rows, as one JDBC batch; COMMIT
 *   cancel  BEGIN; UPDATE tw_instance SET status = 'CANCELLED', updated_at_ms = ?
 *           WHERE id = ANY(?) AND status = 'WAITING' RETURNING id; COMMIT
 * </pre>
 *
 * Ids are Snowflake ids of node {@value SnowflakeIdGenerator#MAX_NODE_ID}, which no server leases before the 1 023
 * below it, so they collide with nothing and fall in today's partition of the history. Keys are {@code c-<id>}. Rows
 * are due {@code delayMs} out, shard 0, of a job of their own that the server never runs; the server never arms them
 * (they were not written through it). Inserted ids go to an {@link IdPool} that the cancel phases take from.
 *
 * <p>Before the run-key migration (schema version 7), {@code tw_instance} has no {@code run_key}: the plain insert
 * then leaves the column out, and the keyed one fails (SQLSTATE 42703), which its phase reports as its error.
 *
 * <p>Thread-safe: each worker index has its own connection, used only by that worker's thread; the id counter is
 * atomic.
 */
final class JdbcCeiling implements AutoCloseable {

    static final String LOCK_JOB = "SELECT id FROM tw_job WHERE id = ? FOR SHARE";
    /** The run key's own table on the partitioned schema: the unique (job, key) lives there. */
    static final String INSERT_KEY = "INSERT INTO tw_run_key (job_id, run_key, instance_id) VALUES (?, ?, ?)"
            + " ON CONFLICT (job_id, run_key) DO NOTHING";
    private static final String COLUMNS = "id, job_id, status, scheduled_trigger_time_ms, expected_trigger_time_ms,"
            + " actual_trigger_time_ms, attempt, error, params, call_started_at_ms, created_at_ms, updated_at_ms,"
            + " shard";
    private static final String VALUES = "?, ?, 'WAITING', NULL, ?, NULL, 0, NULL, NULL, NULL, ?, ?, ?";
    static final String INSERT = "INSERT INTO tw_instance (" + COLUMNS + ", run_key) VALUES (" + VALUES + ", ?)";
    static final String INSERT_KEYED = INSERT
            + " ON CONFLICT (job_id, run_key) WHERE run_key IS NOT NULL DO NOTHING";
    /** The plain insert on a schema before the run-key migration. */
    static final String INSERT_BEFORE_KEYS = "INSERT INTO tw_instance (" + COLUMNS + ") VALUES (" + VALUES + ")";
    static final String CANCEL = "UPDATE tw_instance SET status = 'CANCELLED', updated_at_ms = ?"
            + " WHERE id = ANY(?) AND status = 'WAITING' RETURNING id";

    private static final int SHARD = 0;
    /** A statement still running after this fails (SQLSTATE 57014), so a phase always ends. */
    private static final int STATEMENT_TIMEOUT_S = 30;

    private final String jdbcUrl;
    private final long jobId;
    private final long delayMs;
    private final boolean keyColumn;
    private final Connection[] connections; // slot i: worker i's only
    private final SnowflakeIdGenerator ids = new SnowflakeIdGenerator(SnowflakeIdGenerator.MAX_NODE_ID,
            Clock.systemUTC()); // shared by every worker: each id is used once
    private volatile Boolean keyTable; // whether tw_run_key exists, read on the first insert

    /**
     * @param jdbcUrl   the server's database and schema
     * @param jobId     the job every row belongs to (it must exist: the lock reads it)
     * @param delayMs   rows are due this long after they are written
     * @param workers   the most worker indexes that will call
     * @param keyColumn whether {@code tw_instance.run_key} exists
     */
    JdbcCeiling(String jdbcUrl, long jobId, long delayMs, int workers, boolean keyColumn) {
        this.jdbcUrl = jdbcUrl;
        this.jobId = jobId;
        this.delayMs = delayMs;
        this.keyColumn = keyColumn;
        this.connections = new Connection[workers];
    }

    /**
     * Transactions of {@code rows} inserts each (one JDBC batch after the job lock), with unique keys if
     * {@code keyed}; the ids of the rows written go to {@code inserted}. Items: rows written.
     */
    LoadOperation insert(int rows, boolean keyed, IdPool inserted) {
        boolean withKeyColumn = keyed || keyColumn;
        return worker -> {
            Connection c = connection(worker);
            try {
                boolean keysApart = hasKeyTable(c);
                String sql = keyed && !keysApart ? INSERT_KEYED : keyColumn ? INSERT : INSERT_BEFORE_KEYS;
                if (!lockJob(c)) {
                    c.rollback();
                    return Outcome.error("no job row", "SELECT … FOR KEY SHARE found no job " + jobId);
                }
                long[] rowIds = new long[rows];
                for (int i = 0; i < rows; i++) {
                    rowIds[i] = ids.nextId();
                }
                long nowMs = System.currentTimeMillis();
                int[] counts;
                if (keyed && keysApart) {
                    try (PreparedStatement keys = c.prepareStatement(INSERT_KEY)) {
                        keys.setQueryTimeout(STATEMENT_TIMEOUT_S);
                        for (long id : rowIds) {
                            keys.setLong(1, jobId);
                            keys.setString(2, "c-" + id);
                            keys.setLong(3, id);
                            keys.addBatch();
                        }
                        keys.executeBatch();
                    }
                }
                try (PreparedStatement insert = c.prepareStatement(sql)) {
                    insert.setQueryTimeout(STATEMENT_TIMEOUT_S);
                    for (int i = 0; i < rows; i++) {
                        long id = rowIds[i];
                        insert.setLong(1, id);
                        insert.setLong(2, jobId);
                        insert.setLong(3, nowMs + delayMs);
                        insert.setLong(4, nowMs);
                        insert.setLong(5, nowMs);
                        insert.setInt(6, SHARD);
                        if (withKeyColumn) {
                            insert.setString(7, keyed ? "c-" + id : null);
                        }
                        if (rows > 1) {
                            insert.addBatch();
                        }
                    }
                    counts = rows == 1 ? new int[] {insert.executeUpdate()} : insert.executeBatch();
                }
                c.commit();
                int written = 0;
                for (int i = 0; i < counts.length; i++) {
                    if (counts[i] == 1 || counts[i] == Statement.SUCCESS_NO_INFO) {
                        inserted.add(rowIds[i]);
                        written++;
                    }
                }
                return Outcome.success(written);
            } catch (SQLException e) {
                return failed(worker, e);
            }
        };
    }

    /**
     * Transactions each cancelling up to {@code ids} of the rows in {@code pool} with one {@code UPDATE … = ANY(?)}.
     * Items: rows the update returned (moved from WAITING to CANCELLED).
     */
    LoadOperation cancel(int ids, IdPool pool) {
        return worker -> {
            long[] batch = pool.take(ids);
            if (batch.length == 0) {
                return Outcome.exhausted();
            }
            Arrays.sort(batch); // as the server sends them: racing transactions lock rows in one order
            Connection c = connection(worker);
            try {
                int cancelled = 0;
                try (PreparedStatement update = c.prepareStatement(CANCEL)) {
                    update.setQueryTimeout(STATEMENT_TIMEOUT_S);
                    update.setLong(1, System.currentTimeMillis());
                    Array array = c.createArrayOf("bigint", Arrays.stream(batch).boxed().toArray());
                    update.setArray(2, array);
                    try (ResultSet rs = update.executeQuery()) {
                        while (rs.next()) {
                            cancelled++;
                        }
                    }
                    array.free();
                }
                c.commit();
                return Outcome.success(cancelled);
            } catch (SQLException e) {
                return failed(worker, e);
            }
        };
    }

    @Override
    public void close() {
        for (int i = 0; i < connections.length; i++) {
            closeQuietly(i);
        }
    }

    private boolean lockJob(Connection c) throws SQLException {
        try (PreparedStatement lock = c.prepareStatement(LOCK_JOB)) {
            lock.setQueryTimeout(STATEMENT_TIMEOUT_S);
            lock.setLong(1, jobId);
            try (ResultSet rs = lock.executeQuery()) {
                return rs.next();
            }
        }
    }

    /** Whether the run keys live in their own table (the partitioned history of schema version 9). */
    private boolean hasKeyTable(Connection c) throws SQLException {
        Boolean known = keyTable;
        if (known == null) {
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT to_regclass('tw_run_key') IS NOT NULL")) {
                rs.next();
                known = rs.getBoolean(1);
            }
            keyTable = known;
        }
        return known;
    }

    private Connection connection(int worker) throws SQLException {
        Connection c = connections[worker];
        if (c == null) {
            c = DriverManager.getConnection(jdbcUrl);
            c.setAutoCommit(false);
            connections[worker] = c;
        }
        return c;
    }

    private Outcome failed(int worker, SQLException e) {
        try {
            connections[worker].rollback();
        } catch (SQLException broken) {
            closeQuietly(worker); // the next call opens a new one
        }
        return Outcome.error("SQLSTATE " + e.getSQLState(), e.getMessage());
    }

    private void closeQuietly(int worker) {
        Connection c = connections[worker];
        connections[worker] = null;
        if (c != null) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // closing after a failure: nothing more to do with it
            }
        }
    }
}
