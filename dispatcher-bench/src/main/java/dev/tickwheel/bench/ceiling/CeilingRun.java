package dev.tickwheel.bench.ceiling;

import dev.tickwheel.bench.e2e.BenchDatabase;
import dev.tickwheel.server.store.JobAdvance;
import java.time.Duration;
import java.util.List;

/**
 * One ceiling run on a fresh store, four phases, each with {@code instances} jobs of its own (inserted as setup):
 * <ol>
 *   <li>the stages one at a time (create, then claim, then success), each timed;</li>
 *   <li>claim and success pipelined over instances created first (untimed);</li>
 *   <li>create, claim and success pipelined, one claim thread;</li>
 *   <li>the same with two claim threads.</li>
 * </ol>
 * The tables grow from phase to phase (up to 4 × {@code instances} rows), as a server's would between runs.
 *
 * <p>Not thread-safe: confined to the run's main thread.
 */
public final class CeilingRun {

    private final CeilingSettings settings;
    private final Duration timeout;

    public CeilingRun(CeilingSettings settings, Duration timeout) {
        this.settings = settings;
        this.timeout = timeout;
    }

    public CeilingResult run(BenchDatabase database) {
        try (CeilingStore store = new CeilingStore(database.jdbcUrl())) {
            CeilingStages stages = new CeilingStages(store.dataSource(), store.statements(), settings);
            int n = settings.instances();

            List<List<JobAdvance>> pages = store.preparePages(n, settings.pageSize());
            long t0 = System.nanoTime();
            List<CeilingStages.Due> created = stages.create(pages);
            long t1 = System.nanoTime();
            stages.claim(created);
            long t2 = System.nanoTime();
            stages.settle(created);
            long t3 = System.nanoTime();

            List<List<JobAdvance>> dispatchPages = store.preparePages(n, settings.pageSize());
            database.checkpoint(); // as the end-to-end run does before its server creates the instances
            List<CeilingStages.Due> precreated = stages.create(dispatchPages);
            Duration dispatch = stages.pipelined(List.of(), precreated, 1, timeout);
            Duration pipelined = stages.pipelined(store.preparePages(n, settings.pageSize()), List.of(), 1, timeout);
            Duration pipelined2 = stages.pipelined(store.preparePages(n, settings.pageSize()), List.of(), 2, timeout);
            return new CeilingResult(n, perSec(n, t1 - t0), perSec(n, t2 - t1), perSec(n, t3 - t2),
                    perSec(n, t3 - t0), perSec(n, dispatch.toNanos()), perSec(n, pipelined.toNanos()),
                    perSec(n, pipelined2.toNanos()));
        }
    }

    private static double perSec(long count, long elapsedNanos) {
        return count * 1e9 / Math.max(1, elapsedNanos);
    }
}
