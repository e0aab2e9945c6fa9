package dev.tickwheel.server.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;

/**
 * The few statements that H2 and PostgreSQL spell differently. Everything else in the store is plain SQL both
 * databases run unchanged (epoch-millisecond BIGINT times, {@code LIMIT}, {@code = ANY(?)} over an array,
 * {@code IS NOT DISTINCT FROM}).
 *
 * <p>Immutable; thread-safe.
 */
public interface SqlDialect {

    /** A short name for logs: {@code h2} or {@code postgresql}. */
    String name();

    /**
     * An SQL expression for the database's clock in epoch milliseconds (a BIGINT): the one clock every lease and
     * fence statement judges expiry by, so members whose own clocks disagree still agree on who owns what. Wrapped
     * by {@link DatabaseClock}, which lets tests substitute a clock of their own.
     */
    String currentTimeMillis();

    /**
     * An insert of one row that does nothing (update count 0) if a row with the same {@code keyColumns} exists,
     * and inserts it (update count 1) otherwise. The statement has one {@code ?} per column, in the order of
     * {@code columns}. A conflict on any other unique key (the primary key) still fails with SQLState 23505.
     */
    String insertIfAbsent(String table, List<String> columns, List<String> keyColumns);

    /**
     * The suffix of a {@code SELECT} that locks the rows it reads against their deletion and update for the rest of
     * the transaction, as lightly as the database allows: PostgreSQL's {@code FOR SHARE} lets any number of such
     * transactions proceed together and blocks a {@code DELETE} or {@code UPDATE} until they end (and an update in
     * progress blocks it, after which it reads the updated row); elsewhere {@code FOR UPDATE}.
     */
    default String lockAgainstChange() {
        return " FOR UPDATE";
    }

    /**
     * Wraps a single compare-and-set {@code UPDATE} so that executing it as a query returns the {@code id} of every
     * row it changed. Parameters stay in the order of {@code updateSql}. Never null, but exact under concurrency
     * only where {@link #batchedCompareAndSetIsExact()} says so; elsewhere the store changes a set of rows with one
     * compare-and-set per row instead ({@link RowByRowCas}).
     */
    String updateReturningIds(String updateSql);

    /**
     * Wraps a single {@code UPDATE} so that executing it as a query returns {@code columns} (a comma-separated
     * list) of every row it changed, as they are after the update. Parameters stay in the order of
     * {@code updateSql}.
     */
    String updateReturning(String updateSql, String columns);

    /**
     * Whether a multi-row compare-and-set ({@code UPDATE ... WHERE id = ANY(?) AND status = ?}) wrapped by
     * {@link #updateReturning} reports exactly the rows this statement moved when other transactions race for the
     * same rows. True on PostgreSQL (a row whose status changed while waiting for its lock is re-checked and
     * skipped). False on H2 2.3: under a race its {@code FINAL TABLE} returned rows another transaction had already
     * moved (caught by the batched-claim race test), so batched transitions use one compare-and-set per row there.
     */
    default boolean batchedCompareAndSetIsExact() {
        return true;
    }

    /**
     * Whether this database keeps the instance history in day partitions, with the unique keys of instances (schedule
     * slot, run key) in tables of their own ({@link PartitionedHistory}: PostgreSQL), rather than in one table whose
     * unique indexes hold them (H2).
     */
    default boolean partitionsHistory() {
        return false;
    }

    /**
     * An insert of {@code rows} rows into {@code table} (one {@code ?} per column per row, row after row) that inserts
     * a row only if its key ({@code keyColumns}, all non-null) is absent from {@code keyTable}, records the key there
     * with the row's {@code id} as {@code instance_id}, and run as a query returns the {@code id} of every row it
     * inserted; a row with a null key column is always inserted. Empty where the keys live in {@code table} itself
     * ({@link #partitionsHistory()} false): the caller then batches {@link #insertIfAbsent}.
     */
    default java.util.Optional<String> insertIfAbsentReturningIds(String table, List<String> columns,
                                                                  String keyTable, List<String> keyColumns,
                                                                  int rows) {
        return java.util.Optional.empty();
    }

    /**
     * Makes the rest of the current transaction's queries walk an index in {@code ORDER BY} order rather than
     * collect and sort. For the keyset-paged scans over many rows (due jobs, waiting instances of a member's
     * shards): each page must read about {@code LIMIT} index entries, or a pass over N rows costs N squared.
     * Does nothing by default; must be called inside a transaction (its effect ends with it).
     *
     * @throws SQLException if the database refuses the setting
     */
    default void preferIndexOrder(Connection connection) throws SQLException {
    }

    /**
     * Makes the rest of the current transaction's joins of a few hundred given keys (an {@code unnest} of arrays) with
     * a table probe the table's index once per key, rather than hash or sort a scan of the whole table, whatever the
     * statistics say. Does nothing by default; must be called inside a transaction (its effect ends with it).
     *
     * @throws SQLException if the database refuses the setting
     */
    default void preferIndexLookups(Connection connection) throws SQLException {
    }

    /**
     * The dialect for a JDBC URL.
     *
     * @throws IllegalArgumentException if the URL is neither H2 nor PostgreSQL
     */
    static SqlDialect forJdbcUrl(String jdbcUrl) {
        String lower = jdbcUrl == null ? "" : jdbcUrl.toLowerCase(Locale.ROOT);
        if (lower.startsWith("jdbc:h2:")) {
            return new H2Dialect();
        }
        if (lower.startsWith("jdbc:postgresql:")) {
            return new PostgresDialect();
        }
        throw new IllegalArgumentException(
                "jdbcUrl must start with jdbc:h2: or jdbc:postgresql: (the supported stores): " + jdbcUrl);
    }
}
