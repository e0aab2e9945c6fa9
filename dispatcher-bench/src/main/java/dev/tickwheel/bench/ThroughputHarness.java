package dev.tickwheel.bench;

import dev.tickwheel.bench.peer.Contender;
import dev.tickwheel.bench.peer.NoopTask;
import dev.tickwheel.bench.peer.Peer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Schedule throughput ({@code count} timers, delays 1–60 s, with 1 and 2 producer threads) and cancel throughput
 * (all of them, by unique ID through the ID map for instance services, through the handle for plain timers, in a
 * shuffled order, one thread).
 *
 * <p>Each fork builds a fresh peer per iteration; producers wait on a latch, and the time runs from its release to
 * the last producer's return. Cancel is timed right after, on the same peer. Warm-up iterations are discarded; a
 * fork reports the median of its measured iterations. For wheels that unlink cancelled nodes on their worker (Netty,
 * Tickwheel), the cancel time is the caller's cost; the worker's unlinking happens concurrently on the other core.
 *
 * <p>Run alone: {@code java -cp dispatcher-bench/target/benchmarks.jar dev.tickwheel.bench.ThroughputHarness
 * [--quick] [--forks N] [--peers a,b]}.
 *
 * <p>Not thread-safe; a program.
 */
public final class ThroughputHarness {

    public static final int COUNT = 1_000_000;
    /** Quick mode schedules as many timers; it runs fewer iterations. */
    public static final int QUICK_COUNT = 1_000_000;

    private ThroughputHarness() {
    }

    public static List<Peer> defaultPeers() {
        return Peer.all();
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--child")) {
            child(args);
            return;
        }
        BenchOptions options = BenchOptions.parse(args);
        System.out.println(Report.throughputTable(run(options), count(options)));
    }

    static int count(BenchOptions options) {
        return options.quick() ? QUICK_COUNT : COUNT;
    }

    public static Map<Peer, ForkResult> run(BenchOptions options) {
        int warmups = options.quick() ? 1 : 2;
        int iterations = options.quick() ? 2 : 5;
        return ForkRunner.run("throughput", ThroughputHarness.class, options.peersOr(defaultPeers()),
                options.forks(), Duration.ofMinutes(10), (peer, fork) -> List.of("--child", peer.id(),
                        Integer.toString(count(options)), Integer.toString(warmups), Integer.toString(iterations),
                        Long.toString(11 + fork)));
    }

    private static void child(String[] args) throws Exception {
        Peer peer = Peer.byId(args[1]);
        int count = Integer.parseInt(args[2]);
        int warmups = Integer.parseInt(args[3]);
        int iterations = Integer.parseInt(args[4]);
        SplittableRandom random = new SplittableRandom(Long.parseLong(args[5]));
        long[] delaysMs = new long[count];
        int[] cancelOrder = new int[count];
        for (int i = 0; i < count; i++) {
            delaysMs[i] = 1_000 + random.nextLong(59_001);
            cancelOrder[i] = i;
        }
        for (int i = count - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = cancelOrder[i];
            cancelOrder[i] = cancelOrder[j];
            cancelOrder[j] = t;
        }
        Map<String, Object> result = new LinkedHashMap<>();
        List<Double> cancels = new ArrayList<>();
        for (int producers : new int[] {1, 2}) {
            List<Double> schedules = new ArrayList<>();
            for (int it = 0; it < warmups + iterations; it++) {
                Contender contender = peer.create(count);
                double scheduleOps = schedule(contender, producers, delaysMs);
                long start = System.nanoTime();
                int cancelled = 0;
                for (int id : cancelOrder) {
                    if (contender.cancel(id)) {
                        cancelled++;
                    }
                }
                double cancelOps = count / ((System.nanoTime() - start) / 1e9);
                contender.close();
                if (it >= warmups) {
                    schedules.add(scheduleOps);
                    cancels.add(cancelOps);
                    result.put("cancelled_fraction", String.format(java.util.Locale.ROOT, "%.3f",
                            (double) cancelled / count));
                }
                System.gc();
            }
            result.put("schedule_p" + producers + "_ops", String.format(java.util.Locale.ROOT, "%.0f",
                    Summary.of(schedules.stream().mapToDouble(Double::doubleValue).toArray()).median()));
        }
        result.put("cancel_ops", String.format(java.util.Locale.ROOT, "%.0f",
                Summary.of(cancels.stream().mapToDouble(Double::doubleValue).toArray()).median()));
        ChildJvm.emit(result);
        System.exit(0);
    }

    private static double schedule(Contender contender, int producers, long[] delaysMs) throws InterruptedException {
        int count = delaysMs.length;
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        // A producer that throws must fail the fork, not finish early and look fast.
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int p = 0; p < producers; p++) {
            int from = (int) ((long) count * p / producers);
            int to = (int) ((long) count * (p + 1) / producers);
            Thread thread = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                for (int i = from; i < to; i++) {
                    contender.schedule(i, delaysMs[i], NoopTask.INSTANCE);
                }
            }, "bench-producer-" + p);
            thread.setUncaughtExceptionHandler((t, e) -> failure.compareAndSet(null, e));
            thread.start();
            threads.add(thread);
        }
        long start = System.nanoTime();
        go.countDown();
        for (Thread thread : threads) {
            thread.join();
        }
        double ops = count / ((System.nanoTime() - start) / 1e9);
        if (failure.get() != null) {
            throw new IllegalStateException("a producer failed", failure.get());
        }
        return ops;
    }
}
