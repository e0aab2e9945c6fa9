package dev.tickwheel.bench.api;

import dev.tickwheel.bench.api.LoadOperation.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * One phase of closed-loop load: {@code concurrency} worker threads, each sending its next request as soon as the
 * previous one is answered, so exactly that many are in flight; unmeasured for the warm-up, then measured for a fixed
 * window.
 *
 * <pre>
 *   start ── warm-up ──▶ measureFrom ──── measured window ────▶ end
 *   a request counts if it ENDS inside [measureFrom, end]; its latency is its own end − start
 * </pre>
 *
 * A request ending after {@code end} is not counted, so the window is exact.
 *
 * <p>Phases that use up a supply (cancels of the ids an earlier phase created) are given it: their warm-up ends
 * early once a fifth of the supply is used, so that a supply smaller than warm-up plus window at this phase's rate
 * still leaves four fifths to measure; and when the supply runs out the window ends at the last answer, and the
 * result says so. If nothing succeeded during the warm-up but something failed (a route the server does not have),
 * the phase stops there, with the errors, instead of spending its window on them.
 *
 * <p>Not thread-safe: one phase at a time, from one thread; its workers share only the counters below.
 */
final class LoadLoop {

    private static final int EXAMPLE_CHARS = 300;
    /** The share of a supply the warm-up may use at most. */
    private static final double WARM_UP_SUPPLY_SHARE = 0.2;

    private final int concurrency;
    private final Duration warmUp;
    private final Duration measure;
    private final Supplier<CpuSample> cpu;

    /** {@code cpu} is sampled at the start and the end of each measured window. */
    LoadLoop(int concurrency, Duration warmUp, Duration measure, Supplier<CpuSample> cpu) {
        this.concurrency = concurrency;
        this.warmUp = warmUp;
        this.measure = measure;
        this.cpu = cpu;
    }

    /** Runs {@code operation}, which needs no supply, as one phase and returns what the window saw. */
    PhaseResult run(Figure figure, int round, LoadOperation operation) throws InterruptedException {
        return run(figure, round, operation, null);
    }

    /**
     * Runs {@code operation} as one phase and returns what the window saw.
     *
     * @param supply what {@code operation} uses up (it answers {@link Outcome#exhausted()} once it is empty); null
     *               if nothing
     */
    PhaseResult run(Figure figure, int round, LoadOperation operation, IdPool supply) throws InterruptedException {
        Phase phase = new Phase(operation);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < concurrency; i++) {
            Worker worker = new Worker(phase, i);
            phase.workers.add(worker);
            Thread t = new Thread(worker, "tickwheel-bench-load-" + i);
            t.setDaemon(true); // a request stuck past its socket timeout must not keep the JVM alive
            threads.add(t);
        }
        int supplied = supply == null ? 0 : supply.remaining();
        threads.forEach(Thread::start);
        List<String> notes = new ArrayList<>();
        awaitWarmUpEnd(phase, threads, supply, supplied, notes);
        CpuSample.CpuUse cpuUse = null;
        if (phase.warmUpSuccesses.sum() == 0 && phase.warmUpErrors.sum() > 0) {
            phase.stop = true;
            notes.add("nothing succeeded in the warm-up: stopped there");
        } else {
            CpuSample atStart = cpu.get();
            while (System.nanoTime() - phase.endNanos < 0 && anyAlive(threads)) {
                Thread.sleep(Math.max(1, Math.min(20, (phase.endNanos - System.nanoTime()) / 1_000_000)));
            }
            cpuUse = atStart.until(cpu.get());
        }
        long boundNanos = phase.endNanos + TimeUnit.SECONDS.toNanos(60);
        for (Thread t : threads) {
            t.join(Math.max(1, (boundNanos - System.nanoTime()) / 1_000_000));
            if (t.isAlive()) {
                phase.stop = true;
                throw new IllegalStateException(t.getName() + " still waits for an answer 60 s after the phase ended");
            }
        }
        return phase.result(figure, round, notes, cpuUse);
    }

    /** Sleeps through the warm-up; ends it early once a fifth of {@code supply} is used. */
    private void awaitWarmUpEnd(Phase phase, List<Thread> threads, IdPool supply, int supplied, List<String> notes)
            throws InterruptedException {
        long startNanos = System.nanoTime();
        while (System.nanoTime() - phase.measureFromNanos < 0 && anyAlive(threads)) {
            if (supply != null && supplied > 0 && supply.remaining() <= supplied * (1 - WARM_UP_SUPPLY_SHARE)) {
                long nowNanos = System.nanoTime();
                if (phase.measureFromNanos - nowNanos > warmUp.toNanos() / 10) { // worth saying: cut by over 10 %
                    notes.add(String.format("warm-up cut to %.1f s: a fifth of the %,d ids to cancel used",
                            (nowNanos - startNanos) / 1e9, supplied));
                }
                phase.endNanos = nowNanos + measure.toNanos(); // before measureFrom: a worker reads them in reverse
                phase.measureFromNanos = nowNanos;
                return;
            }
            Thread.sleep(supply == null ? Math.max(1, Math.min(50, (phase.measureFromNanos - System.nanoTime())
                    / 1_000_000)) : 1);
        }
    }

    private static boolean anyAlive(List<Thread> threads) {
        return threads.stream().anyMatch(Thread::isAlive);
    }

    /** The state of one phase, shared by its workers. */
    private final class Phase {

        final LoadOperation operation;
        volatile long measureFromNanos; // the phase thread may move the window earlier once, in the warm-up
        volatile long endNanos; // likewise, written before measureFromNanos
        final List<Worker> workers = new ArrayList<>(); // filled before the threads start (Thread.start publishes)
        final LongAdder warmUpSuccesses = new LongAdder(); // workers add, the phase thread reads after the warm-up
        final LongAdder warmUpErrors = new LongAdder(); // likewise
        final AtomicLong exhaustedAtNanos = new AtomicLong(); // 0, or when the first worker found nothing left
        final Map<String, String> errorExamples = new ConcurrentHashMap<>(); // first of each kind, any worker
        volatile boolean stop; // the phase thread tells the workers to end early

        Phase(LoadOperation operation) {
            this.operation = operation;
            long startNanos = System.nanoTime();
            this.measureFromNanos = startNanos + warmUp.toNanos();
            this.endNanos = measureFromNanos + measure.toNanos();
        }

        PhaseResult result(Figure figure, int round, List<String> notes, CpuSample.CpuUse cpuUse) {
            long calls = 0;
            long items = 0;
            long lastEndNanos = measureFromNanos;
            Map<String, Long> errors = new HashMap<>();
            List<LatencySamples> samples = new ArrayList<>();
            for (Worker w : workers) { // each worker's thread has been joined: its fields are visible
                calls += w.calls;
                items += w.items;
                w.errors.forEach((k, v) -> errors.merge(k, v, Long::sum));
                samples.add(w.latencies);
                if (w.answered && w.lastEndNanos - lastEndNanos > 0) { // nanoTime: compare differences only
                    lastEndNanos = w.lastEndNanos;
                }
            }
            long windowNanos = endNanos - measureFromNanos;
            long exhaustedAt = exhaustedAtNanos.get();
            if (stop) {
                windowNanos = 0;
            } else if (exhaustedAt != 0 && exhaustedAt - measureFromNanos <= 0) {
                windowNanos = 0;
                notes.add("nothing left to send (no ids to cancel) before the measured window began");
            } else if (exhaustedAt != 0 && exhaustedAt - endNanos < 0) {
                long fullNanos = windowNanos;
                windowNanos = (lastEndNanos - endNanos < 0 ? lastEndNanos : endNanos) - measureFromNanos;
                if (windowNanos < fullNanos * 0.99) {
                    notes.add(String.format("ran out of ids to cancel: measured %.1f s of %.1f s", windowNanos / 1e9,
                            fullNanos / 1e9));
                }
            }
            LatencySamples all = LatencySamples.merge(samples);
            return new PhaseResult(figure, round, windowNanos, calls, items, errors, errorExamples,
                    all.percentileUs(50), all.percentileUs(99), all.percentileUs(100), cpuUse,
                    notes.isEmpty() ? null : String.join("; ", notes));
        }
    }

    /** One closed-loop client: its counters are its own until its thread ends. */
    private static final class Worker implements Runnable {

        private final Phase phase;
        private final int index;
        private final LatencySamples latencies = new LatencySamples();
        private final Map<String, Long> errors = new HashMap<>();
        private long calls;
        private long items;
        private long lastEndNanos;
        private boolean answered; // lastEndNanos is set

        Worker(Phase phase, int index) {
            this.phase = phase;
            this.index = index;
        }

        @Override
        public void run() {
            while (!phase.stop) {
                long startNanos = System.nanoTime();
                if (startNanos - phase.endNanos >= 0) {
                    return;
                }
                Outcome outcome;
                try {
                    outcome = phase.operation.call(index);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                } catch (Exception e) {
                    outcome = Outcome.error(e.getClass().getSimpleName(), String.valueOf(e.getMessage()));
                }
                long endNanos = System.nanoTime();
                if (outcome.kind() == Outcome.Kind.EXHAUSTED) {
                    phase.exhaustedAtNanos.compareAndSet(0, startNanos);
                    return;
                }
                lastEndNanos = endNanos;
                answered = true;
                long measureFromNanos = phase.measureFromNanos; // read first: see awaitWarmUpEnd
                boolean warmUp = endNanos - measureFromNanos < 0;
                boolean measured = !warmUp && endNanos - phase.endNanos <= 0;
                if (outcome.kind() == Outcome.Kind.SUCCESS) {
                    if (measured) {
                        calls++;
                        items += outcome.items();
                        latencies.add((endNanos - startNanos) / 1_000);
                    } else if (warmUp) {
                        phase.warmUpSuccesses.increment();
                    }
                } else {
                    String detail = outcome.detail() == null ? "" : outcome.detail();
                    phase.errorExamples.putIfAbsent(outcome.error(),
                            detail.length() > EXAMPLE_CHARS ? detail.substring(0, EXAMPLE_CHARS) + "…" : detail);
                    if (measured) {
                        errors.merge(outcome.error(), 1L, Long::sum);
                    } else if (warmUp) {
                        phase.warmUpErrors.increment();
                    }
                }
            }
        }
    }
}
