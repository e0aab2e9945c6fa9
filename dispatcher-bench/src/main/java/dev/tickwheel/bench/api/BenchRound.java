package dev.tickwheel.bench.api;

import dev.tickwheel.bench.Machine;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One round's phases, in the order each needs the one before: the API calls against the server, then the eight
 * JDBC ceilings on its database. Every phase is one {@link LoadLoop} run (JVM client, ceilings) or two wrk
 * invocations ({@link WrkClient}); its result is printed and kept as it ends, so a round that fails half-way keeps
 * the phases before. With {@code --client jvm} the wrk phases are left out, with {@code --client wrk} the JVM
 * client's single calls (1 to 3b; the batches always run).
 *
 * <pre>
 *   API      run (JVM) → run (wrk) → keyed run (JVM) → keyed run (wrk)
 *            → make WAITING runs for wrk's cancels (batch calls: unkeyed for 3a, keyed for 3b; each the warm-up's
 *              share and the window's)
 *            → ANALYZE → cancel by id (JVM, of its run's) → cancel by id (wrk) → cancel by key (JVM, of its keyed
 *              run's) → cancel by key (wrk)
 *            → batch run → ANALYZE → batch cancel (of batch run's) → DELETE the round's job (cancels what is left)
 *   ceiling  insert 1 → keyed insert 1 → insert small group → insert batch → keyed insert batch
 *            → ANALYZE → cancel 1 → cancel small group → cancel batch (of the rows the inserts wrote)
 *            → delete those rows
 * </pre>
 *
 * Before round 1, {@link #serverWarmUp} sends the single calls untimed, so that the first measured figure does not
 * meet a server whose JIT has not compiled its request path yet.
 *
 * The {@code ANALYZE} before the cancels is outside every window; {@link BenchSchema#analyze()} says why it is needed.
 *
 * <p>Each round runs on a job of its own, deleted at the round's end, so no instance a round created is still
 * WAITING when it falls due ({@code delayMs} later) and the next round starts from an idle server.
 *
 * <p>Not thread-safe: confined to the benchmark's main thread.
 */
final class BenchRound {

    /** Batch calls in flight while the runs for wrk's cancels are made (outside every window). */
    private static final int SUPPLY_CALLS_IN_FLIGHT = 8;
    /** Runs made by batch calls per second of the server warm-up's cancels, on top of what its runs made. */
    private static final int WARM_UP_SUPPLY_PER_SECOND = 20_000;

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

    /**
     * The API phases of round {@code round} on a new job of {@code api}'s server.
     *
     * @param wrk wrk's single calls; null if {@code --client jvm}
     */
    void api(int round, SchedulingApi api, ApiCalls calls, BenchSchema schema, WrkClient wrk)
            throws InterruptedException {
        long jobId = api.createJob("bench round " + round);
        boolean jvm = settings.client().jvm();
        IdPool runs = new IdPool();
        IdPool keys = new IdPool();
        IdPool batchRuns = new IdPool();
        if (jvm) {
            phase(Figure.RUN, round, calls.run(jobId, runs));
        }
        if (wrk != null) {
            record(wrk.run(round, jobId));
        }
        if (jvm) {
            phase(Figure.RUN_KEYED, round, calls.keyedRun(jobId, keys));
        }
        if (wrk != null) {
            record(wrk.keyedRun(round, jobId));
        }
        WrkClient.Supply byId = null;
        WrkClient.Supply byKey = null;
        String noSupply = null;
        if (wrk != null) {
            try {
                byId = supply(round, calls, jobId, false);
                byKey = supply(round, calls, jobId, true);
            } catch (RuntimeException e) {
                // as a route the server lacks would for the JVM client: these figures fail, the round goes on
                noSupply = "could not make the WAITING runs to cancel: " + e.getMessage();
                out.printf("round %d: %s%n", round, noSupply);
            }
        }
        analyze(round, schema);
        if (jvm) {
            phase(Figure.CANCEL_BY_ID, round, calls.cancelById(runs), runs);
        }
        if (wrk != null) {
            record(byId == null ? WrkClient.notMeasured(Figure.CANCEL_BY_ID_WRK, round, noSupply)
                    : wrk.cancelById(round, byId));
        }
        if (jvm) {
            phase(Figure.CANCEL_BY_KEY, round, calls.cancelByKey(jobId, keys), keys);
        }
        if (wrk != null) {
            record(byKey == null ? WrkClient.notMeasured(Figure.CANCEL_BY_KEY_WRK, round, noSupply)
                    : wrk.cancelByKey(round, jobId, byKey));
        }
        phase(Figure.RUN_BATCH, round, calls.batchRun(jobId, batchRuns));
        analyze(round, schema);
        phase(Figure.CANCEL_BATCH, round, calls.batchCancel(batchRuns), batchRuns);
        long startNanos = System.nanoTime();
        try {
            api.deleteJob(jobId);
            out.printf("round %d: deleted the round's job in %d ms (its %,d runs, %,d keyed runs and %,d batch runs"
                            + " not cancelled above%s were still WAITING)%n", round,
                    (System.nanoTime() - startNanos) / 1_000_000, runs.remaining(), keys.remaining(),
                    batchRuns.remaining(), wrk == null ? "" : ", and the runs wrk made or did not cancel,");
        } catch (RuntimeException e) {
            // the round's figures stand; its leftover runs fall due delayMs after they were made
            out.printf("round %d: WARNING: could not delete the round's job: %s%n", round, e.getMessage());
        }
    }

    /**
     * Before round 1: the four single calls with the JVM client on a job of their own, {@code --server-warmup-seconds}
     * in all (a quarter each; the cancels take the runs the run phases made and {@value #WARM_UP_SUPPLY_PER_SECOND}
     * more per second made by batch calls, and end early if those run out), nothing reported but one line each; then
     * the job is deleted and the table vacuumed, as between rounds.
     */
    void serverWarmUp(SchedulingApi api, ApiCalls calls, BenchSchema schema, long serverPid)
            throws InterruptedException {
        if (settings.serverWarmUp().isZero()) {
            return;
        }
        long startNanos = System.nanoTime();
        Duration quarter = Duration.ofMillis(Math.max(1_000, settings.serverWarmUp().toMillis() / 4));
        LoadLoop untimed = new LoadLoop(settings.concurrency(), Duration.ZERO, quarter,
                () -> CpuSample.take(serverPid));
        long jobId = api.createJob("bench server warm-up");
        IdPool runs = new IdPool();
        IdPool keys = new IdPool();
        List<PhaseResult> done = new ArrayList<>();
        done.add(untimed.run(Figure.RUN, 0, calls.run(jobId, runs)));
        done.add(untimed.run(Figure.RUN_KEYED, 0, calls.keyedRun(jobId, keys)));
        // the runs above are too few for a quarter of cancels on a cold server: top both up with batch calls
        int topUp = Math.toIntExact(WARM_UP_SUPPLY_PER_SECOND * quarter.toMillis() / 1_000);
        try {
            for (String id : calls.makeWaiting(jobId, topUp, null, SUPPLY_CALLS_IN_FLIGHT)) {
                runs.add(Long.parseLong(id));
            }
            for (String key : calls.makeWaiting(jobId, topUp, "k-", SUPPLY_CALLS_IN_FLIGHT)) {
                keys.add(Long.parseLong(key.substring(2)));
            }
        } catch (RuntimeException e) {
            // a server without the batch route: the cancels warm up on what the runs made
            out.println("server warm-up: could not make more runs to cancel: " + e.getMessage());
        }
        done.add(untimed.run(Figure.CANCEL_BY_ID, 0, calls.cancelById(runs), runs));
        done.add(untimed.run(Figure.CANCEL_BY_KEY, 0, calls.cancelByKey(jobId, keys), keys));
        for (PhaseResult r : done) {
            out.println("server warm-up (not reported): " + r.line().replaceFirst("^round 0 ", ""));
        }
        try {
            api.deleteJob(jobId);
        } catch (RuntimeException e) {
            out.println("server warm-up: WARNING: could not delete its job: " + e.getMessage());
        }
        schema.vacuum();
        out.printf("server warm-up done in %.1f s (job deleted, VACUUM)%n", (System.nanoTime() - startNanos) / 1e9);
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

    /**
     * WAITING runs of {@code jobId} for one of wrk's cancel figures, made now (before its warm-up): its warm-up's
     * share and its window's, each {@link WrkClient#SUPPLY_PER_SECOND} per second of it.
     */
    private WrkClient.Supply supply(int round, ApiCalls calls, long jobId, boolean keyed) throws InterruptedException {
        int warmUp = WrkClient.Supply.size(settings.warmUp());
        int window = WrkClient.Supply.size(settings.measure());
        long startNanos = System.nanoTime();
        List<String> made = calls.makeWaiting(jobId, warmUp + window, keyed ? "w-" : null, SUPPLY_CALLS_IN_FLIGHT);
        out.printf("round %d: made %,d WAITING %s for wrk's cancels by %s in %.1f s (%,d for the warm-up, %,d for the"
                        + " window)%n", round, made.size(), keyed ? "keyed runs" : "runs", keyed ? "key" : "id",
                (System.nanoTime() - startNanos) / 1e9, warmUp, window);
        return new WrkClient.Supply(made.subList(0, warmUp), made.subList(warmUp, made.size()));
    }

    /** A wrk phase's result: printed and kept. */
    private void record(PhaseResult result) {
        out.println(result.line());
        results.computeIfAbsent(result.figure(), f -> new ArrayList<>()).add(result);
    }

    private void phase(Figure figure, int round, LoadOperation operation) throws InterruptedException {
        phase(figure, round, operation, null);
    }

    /** A phase that uses up {@code supply} (null: none). */
    private void phase(Figure figure, int round, LoadOperation operation, IdPool supply)
            throws InterruptedException {
        record(loop.run(figure, round, operation, supply));
    }
}
