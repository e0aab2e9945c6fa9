package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.store.AdvanceResult;
import dev.tickwheel.server.store.JobAdvance;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

/**
 * The statements the engine runs for every instance on its way from a loader page to SUCCEEDED, run on a connection
 * the caller owns: the loader page's job advances and inserts ({@link PageInstanceCreation}), the batched claim and
 * the batched success ({@link BatchTransitions#claimOn}, {@link BatchTransitions#succeedOn}). The SQL text, the
 * parameter binding and the reading of results are the engine's own code, not copies, so that a benchmark of the
 * database's ceiling (dispatcher-bench's {@code StoreCeilingBenchmark}) measures exactly what the engine sends and
 * cannot drift from it; the caller supplies the loop, the connections and the transactions.
 *
 * <p>Transactions, as the engine's stores run them: a page runs inside one transaction; a claim or a success chunk
 * in auto-commit mode, or inside a transaction where {@link #setsNeedTransaction()} says so (H2's row-by-row
 * compare-and-set). No retry on a transient conflict (the engine retries up to twice; a benchmark has none).
 *
 * <p>Thread-safe: stateless besides the store's settings; each call uses only the connection it is given.
 *
 * <p>Caveats: the claim is fenced as the engine's is, so it claims only rows of shards whose lease this store's
 * session holds unexpired; the success only rows claimed under the epoch of a lease the session still holds.
 */
public final class InstancePathStatements {

    private final PageInstanceCreation pages;
    private final BatchTransitions sets;

    private InstancePathStatements(PageInstanceCreation pages, BatchTransitions sets) {
        this.pages = pages;
        this.sets = sets;
    }

    /** The statements of {@code stores}: its dialect, shard count and session (the fence of claims and settles). */
    public static InstancePathStatements of(JdbcStores stores) {
        SqlDialect dialect = stores.dialect();
        BatchTransitions sets = new BatchTransitions(new TransactionRunner(stores.dataSource(), Duration.ZERO),
                new InstanceSql(dialect), dialect, stores.config().clock(), stores.fence());
        return new InstancePathStatements(new PageInstanceCreation(dialect, stores.shardCount()), sets);
    }

    /**
     * One loader page, as {@code InstanceStore.createInstancesAndAdvanceJobs} writes it: every job's advance as one
     * JDBC batch, then the advanced jobs' instances inserted if their slot is free. Run it inside a transaction.
     *
     * @return the instances inserted
     */
    public int createPage(Connection connection, List<JobAdvance> advances, long nowMs) throws SQLException {
        int created = 0;
        for (AdvanceResult result : pages.run(connection, advances, nowMs)) {
            created += result.created().size();
        }
        return created;
    }

    /**
     * One claim chunk ({@code ids} ascending, at most 1 000; {@code armedForMs[i]} the due time the timer of
     * {@code ids[i]} was armed for), as the claim batcher's statement: WAITING → DISPATCHING, the rows read back.
     *
     * @return the instances claimed
     */
    public int claim(Connection connection, Long[] ids, Long[] armedForMs, long nowMs) throws SQLException {
        return sets.claimOn(connection, ids, armedForMs, nowMs).size();
    }

    /**
     * One success chunk ({@code ids} ascending, at most 1 000), as the outcome recorder's statement: DISPATCHING →
     * SUCCEEDED.
     *
     * @return the instances moved
     */
    public int succeed(Connection connection, Long[] ids, long nowMs) throws SQLException {
        return sets.succeedOn(connection, ids, nowMs).size();
    }

    /** Whether claims and successes must run inside a transaction (H2) rather than in auto-commit mode. */
    public boolean setsNeedTransaction() {
        return sets.setsNeedTransaction();
    }
}
