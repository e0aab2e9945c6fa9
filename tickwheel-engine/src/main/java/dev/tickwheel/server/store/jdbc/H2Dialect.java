package dev.tickwheel.server.store.jdbc;

import java.util.List;
import java.util.stream.Collectors;

/**
 * H2 2.x spellings. H2 has {@code INSERT ... ON CONFLICT DO NOTHING} only in PostgreSQL compatibility mode, which
 * the store does not want to impose on users' URLs; the standard {@code MERGE ... WHEN NOT MATCHED THEN INSERT}
 * does the same in the default mode.
 *
 * <p>H2 has no {@code RETURNING}. Its data-change delta table ({@code SELECT id FROM FINAL TABLE (UPDATE ...)})
 * looks like one, but is not a safe compare-and-set in H2 2.3.232: with an index on {@code status}, eight threads
 * racing {@code ... WHERE id = ANY(?) AND status = 'WAITING'} over 1 000 rows claimed some rows up to three times
 * (the plain {@code UPDATE} did not). So this dialect spells the update-returning statements with {@code FINAL TABLE}
 * but answers false to {@link #batchedCompareAndSetIsExact()}, and the store changes sets of rows one
 * compare-and-set per row ({@link RowByRowCas}).
 *
 * <p>Immutable; thread-safe.
 *
 * <p>Caveats: the {@code MERGE} checks for an existing key and inserts in one statement, but two transactions that
 * insert the same key concurrently get a unique-key violation rather than a skip. The store never does that: it
 * inserts schedule slots only after locking the job row with its compare-and-set.
 */
final class H2Dialect implements SqlDialect {

    @Override
    public String name() {
        return "h2";
    }

    /**
     * H2 has no clock that moves within a transaction: {@code CURRENT_TIMESTAMP} is the transaction's start (in
     * auto-commit mode, the statement's). H2 serves one member, whose leases no other member can take, so the
     * difference does not matter there.
     */
    @Override
    public String currentTimeMillis() {
        return "CAST(FLOOR(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000) AS BIGINT)";
    }

    @Override
    public String insertIfAbsent(String table, List<String> columns, List<String> keyColumns) {
        String columnList = String.join(", ", columns);
        String placeholders = columns.stream().map(c -> "?").collect(Collectors.joining(", "));
        String match = keyColumns.stream().map(k -> "t." + k + " = s." + k).collect(Collectors.joining(" AND "));
        String sourceColumns = columns.stream().map(c -> "s." + c).collect(Collectors.joining(", "));
        return "MERGE INTO " + table + " t USING (VALUES (" + placeholders + ")) s(" + columnList + ")"
                + " ON " + match
                + " WHEN NOT MATCHED THEN INSERT (" + columnList + ") VALUES (" + sourceColumns + ")";
    }

    @Override
    public String updateReturningIds(String updateSql) {
        return updateReturning(updateSql, "id");
    }

    @Override
    public String updateReturning(String updateSql, String columns) {
        return "SELECT " + columns + " FROM FINAL TABLE (" + updateSql + ")";
    }

    /** See {@link SqlDialect#batchedCompareAndSetIsExact()}: not under concurrent updates of the same rows. */
    @Override
    public boolean batchedCompareAndSetIsExact() {
        return false;
    }
}
