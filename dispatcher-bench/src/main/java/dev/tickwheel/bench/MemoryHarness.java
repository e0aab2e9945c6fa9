package dev.tickwheel.bench;

import dev.tickwheel.bench.peer.Contender;
import dev.tickwheel.bench.peer.NoopTask;
import dev.tickwheel.bench.peer.Peer;
import java.lang.ref.Reference;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Heap bytes per pending timer (plain timers, cancelled through their handle) and per pending cancellable instance
 * (timer + ID-map entry), with {@code count} timers pending 10–60 minutes out.
 *
 * <p>Each fork builds one peer (a plain timer's handle array is allocated here, before the baseline, so it is not
 * charged), takes a live-object heap histogram ({@link HeapHistogram}, full GC first), schedules {@code count} timers
 * sharing one task object, waits 2 s for the peer's worker to move them into its wheel, and takes a second histogram.
 * Bytes per pending = (live bytes after − live bytes before) / count; the classes that grew most are listed too. JVM
 * defaults: 64-bit with compressed oops and compressed class pointers (heap under 32 GiB), 8-byte alignment.
 *
 * <p>Run alone: {@code java -cp dispatcher-bench/target/benchmarks.jar dev.tickwheel.bench.MemoryHarness [--quick]
 * [--forks N] [--peers a,b]}.
 *
 * <p>Not thread-safe; a program.
 */
public final class MemoryHarness {

    public static final int COUNT = 1_000_000;

    private MemoryHarness() {
    }

    public static List<Peer> defaultPeers() {
        // powerjob-service-fresh differs from powerjob-service only between iterations: the same heap per instance.
        return Peer.all().stream().filter(p -> p != Peer.POWERJOB_SERVICE_FRESH).toList();
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--child")) {
            child(args);
            return;
        }
        Map<Peer, ForkResult> result = run(BenchOptions.parse(args));
        System.out.println(Report.memoryTable(result));
    }

    public static Map<Peer, ForkResult> run(BenchOptions options) {
        return ForkRunner.run("memory", MemoryHarness.class, options.peersOr(defaultPeers()), options.forks(),
                Duration.ofMinutes(3), (peer, fork) -> List.of("--child", peer.id(), Integer.toString(COUNT),
                        Long.toString(7 + fork)));
    }

    private static void child(String[] args) throws Exception {
        Peer peer = Peer.byId(args[1]);
        int count = Integer.parseInt(args[2]);
        SplittableRandom random = new SplittableRandom(Long.parseLong(args[3]));
        long[] delaysMs = new long[count];
        for (int i = 0; i < count; i++) {
            delaysMs[i] = 600_000 + random.nextLong(3_000_000);
        }
        Runnable task = NoopTask.INSTANCE;
        Contender contender = peer.create(count);
        try {
            Thread.sleep(500);
            HeapHistogram before = HeapHistogram.take();
            for (int i = 0; i < count; i++) {
                contender.schedule(i, delaysMs[i], task);
            }
            Thread.sleep(2_000);
            HeapHistogram after = HeapHistogram.take();
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("bytes_per_pending", String.format(java.util.Locale.ROOT, "%.1f",
                    (double) (after.totalBytes() - before.totalBytes()) / count));
            result.put("top_classes", after.topGrowth(before, 4, count));
            ChildJvm.emit(result);
            Reference.reachabilityFence(delaysMs);
            Reference.reachabilityFence(task);
        } finally {
            contender.close();
        }
        System.exit(0);
    }
}
