package dev.tickwheel.bench.api;

import dev.tickwheel.bench.Machine;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One round's phases, in the order each needs the one before: the six API calls against the server, then the
 * eight JDBC ceilings on its database. Every phase is one {@link LoadLoop} run; its result is printed and kept as it
 * ends, so a round that fails half-way keeps the phases before.
 *
 * <pre>
 *   API      run → keyed run → ANALYZE → cancel by id (of run's) → cancel by key (of keyed run's)
 *            → batch run → ANALYZE → batch cancel (of batch run's) → DELETE the round's job (cancels what is left)
 *   ceiling  insert 1 → keyed insert 1 → insert small group → insert batch → keyed insert batch
 *            → ANALYZE → cancel 1 → cancel small group → cancel batch (of the rows the inserts wrote)
 *            → delete those rows
 * </pre>
 *
 * The {@code ANALYZE} before the cancels is outside every window; {@link BenchSchema#analyze()} says why it is needed.
 *
 * <p>Each round runs on a job of its own, deleted at the round's end, so no instance a round created is still
 * WAITING when it falls due ({@code delayMs} later) and the next round starts from an idle server.
 *
 * <p>Not thread-safe: confined to the benchmark's main thread.
 */
final class BenchRound {

    private final ApiLoadSettings settings;
    private final LoadLoop loop;
    private final PrintStream out;
    private final Map<Figure, List<PhaseResult>> results;

    /**
     * @param serverPid the server process, whose CPU each phase reports
     * @param results   where each phase's result goes, by figure, in round order
     */
    BenchRound(ApiLoadSettings settings, long serverPid, PrintStream out, Map<Figure, List<PhaseResult>> results) {
        this.settings = settings;
        this.loop = new LoadLoop(settings.concurrency(), settings.warmUp(), settings.measure(),
                () -> CpuSample.take(serverPid));
        this.out = out;
        this.results = results;
    }

    /** The six API phases of round {@code round} on a new job of {@code api}'s server. */
    void api(int round, SchedulingApi api, ApiCalls calls, BenchSchema schema) throws InterruptedException {
        long jobId = api.createJob("bench round " + round);
        IdPool runs = new IdPool();
        IdPool keys = new IdPool();
        IdPool batchRuns = new IdPool();
        phase(Figure.RUN, round, calls.run(jobId, runs));
        phase(Figure.RUN_KEYED, round, calls.keyedRun(jobId, keys));
        analyze(round, schema);
        phase(Figure.CANCEL_BY_ID, round, calls.cancelById(runs), runs);
        phase(Figure.CANCEL_BY_KEY, round, calls.cancelByKey(jobId, keys), keys);
        phase(Figure.RUN_BATCH, round, calls.batchRun(jobId, batchRuns));
        analyze(round, schema);
        phase(Figure.CANCEL_BATCH, round, calls.batchCancel(batchRuns), batchRuns);
        long startNanos = System.nanoTime();
        try {
            api.deleteJob(jobId);
            out.printf("round %d: deleted the round's job in %d ms (its %,d runs, %,d keyed runs and %,d batch runs"
                            + " not cancelled above were still WAITING)%n", round,
                    (System.nanoTime() - startNanos) / 1_000_000, runs.remaining(), keys.remaining(),
                    batchRuns.remaining());
        } catch (RuntimeException e) {
            // the round's figures stand; its leftover runs fall due delayMs after they were made
            out.printf("round %d: WARNING: could not delete the round's job: %s%n", round, e.getMessage());
        }
    }

    /** The eight ceiling phases of round {@code round}; the rows they wrote are deleted at the end. */
    void ceiling(int round, JdbcCeiling ceiling, BenchSchema schema, long ceilingJobId) throws InterruptedException {
        int small = settings.smallGroup();
        int batch = settings.batchSize();
        IdPool inserted = new IdPool();
        phase(Figure.INSERT_ONE, round, ceiling.insert(1, false, inserted));
        phase(Figure.INSERT_ONE_KEYED, round, ceiling.insert(1, true, inserted));
        phase(Figure.INSERT_SMALL_GROUP, round, ceiling.insert(small, false, inserted));
        phase(Figure.INSERT_BATCH, round, ceiling.insert(batch, false, inserted));
        phase(Figure.INSERT_BATCH_KEYED, round, ceiling.insert(batch, true, inserted));
        analyze(round, schema);
        phase(Figure.CANCEL_ONE, round, ceiling.cancel(1, inserted), inserted);
        phase(Figure.CANCEL_SMALL_GROUP, round, ceiling.cancel(small, inserted), inserted);
        phase(Figure.CANCEL_BATCH_ROWS, round, ceiling.cancel(batch, inserted), inserted);
        long startNanos = System.nanoTime();
        int deleted = schema.deleteInstancesOf(ceilingJobId);
        out.printf("round %d: deleted the ceiling's %,d rows in %d ms%n", round, deleted,
                (System.nanoTime() - startNanos) / 1_000_000);
    }

    /** The round's end: {@code VACUUM (ANALYZE) tw_instance}, so the next round starts without this one's dead rows. */
    void vacuum(int round, BenchSchema schema) {
        long startNanos = System.nanoTime();
        schema.vacuum();
        out.printf("round %d done: load average %s; VACUUM took %d ms%n", round, Machine.loadAverage(),
                (System.nanoTime() - startNanos) / 1_000_000);
    }

    /** Fresh planner statistics before a cancel phase (see {@link BenchSchema#analyze()}). */
    private void analyze(int round, BenchSchema schema) {
        long startNanos = System.nanoTime();
        schema.analyze();
        out.printf("round %d: ANALYZE tw_instance took %d ms%n", round, (System.nanoTime() - startNanos) / 1_000_000);
    }

    private void phase(Figure figure, int round, LoadOperation operation) throws InterruptedException {
        phase(figure, round, operation, null);
    }

    /** A phase that uses up {@code supply} (null: none). */
    private void phase(Figure figure, int round, LoadOperation operation, IdPool supply)
            throws InterruptedException {
        PhaseResult result = loop.run(figure, round, operation, supply);
        out.println(result.line());
        results.computeIfAbsent(figure, f -> new ArrayList<>()).add(result);
    }
}
