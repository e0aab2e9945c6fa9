package dev.tickwheel.bench;

import dev.tickwheel.bench.peer.Contender;
import dev.tickwheel.bench.peer.Peer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Fire lateness: how long after its deadline each timer runs, and how many run before it.
 *
 * <p>Each fork builds one peer, warms it with a round of {@code count} timers over 0–500 ms, then schedules
 * {@code count} timers with whole-millisecond delays drawn uniformly from {@code [minDelayMs, minDelayMs + spreadMs]}
 * (the same seeded sequence for every peer in a fork). Just before each schedule call it reads {@code nanoTime()}
 * ({@code t0}); the intended deadline is {@code t0 + delay}; the task records {@code nanoTime()} when it runs.
 * Lateness = fire − deadline. A fire before the deadline is counted as early, never as on time. Because {@code t0} is
 * read before the peer reads its own clock, a peer that fires exactly on its own deadline shows a small positive
 * lateness (the cost of the schedule call), never a negative one.
 *
 * <p>Run alone: {@code java -cp dispatcher-bench/target/benchmarks.jar dev.tickwheel.bench.LatenessHarness [--quick]
 * [--forks N] [--peers a,b]}. The two-tier case (delays 60–180 s, real hand-offs) runs in the full suite only:
 * {@code ... LatenessHarness --two-tier}.
 *
 * <p>Not thread-safe; a program.
 */
public final class LatenessHarness {

    /** The short case: 20 000 timers over 0–2 s. */
    public static final int COUNT = 20_000;
    public static final long SPREAD_MS = 2_000;
    /** The two-tier case: timers over 60–180 s, so every one above 60 s is handed from the coarse wheel. */
    public static final int TWO_TIER_COUNT = 2_000;
    public static final long TWO_TIER_MIN_MS = 60_000;
    public static final long TWO_TIER_SPREAD_MS = 120_000;

    private static final Path SAMPLES_DIR = Path.of(System.getProperty("java.io.tmpdir"), "tickwheel-bench");

    private LatenessHarness() {
    }

    /** Results of every peer plus the pooled lateness samples (ns, sorted) for the CDF chart. */
    public record Result(Map<Peer, ForkResult> byPeer, Map<Peer, long[]> samplesNanos) {
    }

    public static List<Peer> defaultPeers() {
        return Peer.all().stream().filter(p -> p.kind() == Peer.Kind.TIMER || p == Peer.TICKWHEEL_SERVICE
                || p == Peer.POWERJOB_SERVICE
                || p == Peer.POWERJOB_TWO_TIER).toList();
    }

    public static List<Peer> twoTierPeers() {
        return List.of(Peer.TICKWHEEL_SERVICE, Peer.POWERJOB_TWO_TIER, Peer.STPE_MAP);
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--child")) {
            child(args);
            return;
        }
        boolean twoTier = Arrays.asList(args).contains("--two-tier");
        BenchOptions options = BenchOptions.parse(Arrays.stream(args).filter(a -> !a.equals("--two-tier"))
                .toArray(String[]::new));
        Result result = twoTier ? runTwoTier(options) : run(options);
        System.out.println(Report.latenessTable(result.byPeer()));
    }

    public static Result run(BenchOptions options) {
        return run(options, options.peersOr(defaultPeers()), COUNT, 0, SPREAD_MS, "lateness");
    }

    public static Result runTwoTier(BenchOptions options) {
        return run(options, options.peersOr(twoTierPeers()), TWO_TIER_COUNT, TWO_TIER_MIN_MS, TWO_TIER_SPREAD_MS,
                "lateness-2tier");
    }

    private static Result run(BenchOptions options, List<Peer> peers, int count, long minDelayMs, long spreadMs,
                              String name) {
        try {
            Files.createDirectories(SAMPLES_DIR);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Duration timeout = Duration.ofMillis(minDelayMs + spreadMs + 120_000);
        Map<Peer, ForkResult> byPeer = ForkRunner.run(name, LatenessHarness.class, peers, options.forks(), timeout,
                (peer, fork) -> List.of("--child", peer.id(), Integer.toString(count), Long.toString(minDelayMs),
                        Long.toString(spreadMs), Long.toString(42 + fork), samplesFile(name, peer, fork).toString()));
        Map<Peer, long[]> samples = new LinkedHashMap<>();
        for (Peer peer : peers) {
            List<long[]> forks = new ArrayList<>();
            for (int fork = 0; fork < options.forks(); fork++) {
                forks.add(readSamples(samplesFile(name, peer, fork)));
            }
            long[] pooled = forks.stream().flatMapToLong(Arrays::stream).sorted().toArray();
            samples.put(peer, pooled);
        }
        return new Result(byPeer, samples);
    }

    private static Path samplesFile(String name, Peer peer, int fork) {
        return SAMPLES_DIR.resolve(name + "-" + peer.id() + "-" + fork + ".txt");
    }

    private static long[] readSamples(Path file) {
        try {
            return Files.readAllLines(file).stream().mapToLong(Long::parseLong).toArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void child(String[] args) throws Exception {
        Peer peer = Peer.byId(args[1]);
        int count = Integer.parseInt(args[2]);
        long minDelayMs = Long.parseLong(args[3]);
        long spreadMs = Long.parseLong(args[4]);
        long seed = Long.parseLong(args[5]);
        Path samples = Path.of(args[6]);

        Contender contender = peer.create(count);
        try {
            round(contender, count, 0, 500, seed * 31 + 7); // warm-up, discarded
            Round round = round(contender, count, minDelayMs, spreadMs, seed);
            long[] late = round.latenessNanos();
            Files.write(samples, Arrays.stream(late).mapToObj(Long::toString).toList());
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("p50_us", micros(Summary.percentile(late, 50)));
            result.put("p99_us", micros(Summary.percentile(late, 99)));
            result.put("p999_us", micros(Summary.percentile(late, 99.9)));
            result.put("max_us", micros(late.length == 0 ? Double.NaN : late[late.length - 1]));
            result.put("min_us", micros(late.length == 0 ? Double.NaN : late[0]));
            result.put("early", Arrays.stream(late).filter(l -> l < 0).count());
            result.put("missed", count - late.length);
            result.put("duplicates", round.duplicates());
            ChildJvm.emit(result);
        } finally {
            contender.close();
        }
        System.exit(0);
    }

    private static String micros(double nanos) {
        return String.format(java.util.Locale.ROOT, "%.1f", nanos / 1000.0);
    }

    private record Round(long[] latenessNanos, int duplicates) {
    }

    private static Round round(Contender contender, int count, long minDelayMs, long spreadMs, long seed)
            throws InterruptedException {
        SplittableRandom random = new SplittableRandom(seed);
        long[] delaysMs = new long[count];
        for (int i = 0; i < count; i++) {
            delaysMs[i] = minDelayMs + random.nextLong(spreadMs + 1);
        }
        long[] deadlines = new long[count];
        long[] fired = new long[count];
        AtomicInteger duplicates = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(count);
        Runnable[] tasks = new Runnable[count];
        for (int i = 0; i < count; i++) {
            int index = i;
            tasks[i] = () -> {
                long now = System.nanoTime();
                if (fired[index] != 0) {
                    duplicates.incrementAndGet();
                    return;
                }
                fired[index] = now;
                done.countDown();
            };
        }
        for (int i = 0; i < count; i++) {
            // written before the schedule call, so the peer's hand-off publishes it to the firing thread
            deadlines[i] = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delaysMs[i]);
            contender.schedule(i, delaysMs[i], tasks[i]);
        }
        done.await(minDelayMs + spreadMs + 60_000, TimeUnit.MILLISECONDS);
        Thread.sleep(50); // let any duplicate fire show up
        long[] late = new long[count];
        int n = 0;
        for (int i = 0; i < count; i++) {
            if (fired[i] != 0) {
                late[n++] = fired[i] - deadlines[i];
            }
        }
        long[] result = Arrays.copyOf(late, n);
        Arrays.sort(result);
        return new Round(result, duplicates.get());
    }
}
