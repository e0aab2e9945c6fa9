package dev.tickwheel.bench;

import com.sun.management.OperatingSystemMXBean;
import dev.tickwheel.bench.peer.Contender;
import dev.tickwheel.bench.peer.NoopTask;
import dev.tickwheel.bench.peer.Peer;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Idle cost: process CPU per second of wall time, and context switches (wake-ups) per second, first with nothing
 * pending, then with {@code pending} timers due an hour out (3600–3660 s).
 *
 * <p>Each fork builds one peer, lets the JVM settle, and measures {@code getProcessCpuTime()} of
 * {@code com.sun.management.OperatingSystemMXBean} over a window (all threads, but counted in 10 ms clock ticks on
 * Linux, so a 2 s window resolves 5 ms/s), and the summed CPU time of all Java threads from {@code ThreadMXBean}
 * (nanosecond precision; timer, task and JIT compiler threads, not GC or VM threads); wake-ups are the voluntary and involuntary context
 * switches of all threads of the process ({@code /proc/self/task/<tid>/status}), and the busiest thread is named.
 * The {@code jvm-only} row is a JVM with no timer: the floor every peer sits on (GC, JIT and VM threads).
 *
 * <p>Run alone: {@code java -cp dispatcher-bench/target/benchmarks.jar dev.tickwheel.bench.IdleHarness [--quick]
 * [--forks N] [--peers a,b]}.
 *
 * <p>Not thread-safe; a program.
 */
public final class IdleHarness {

    public static final int PENDING = 1_000_000;
    private static final long HOUR_MS = 3_600_000;

    private IdleHarness() {
    }

    public static List<Peer> defaultPeers() {
        List<Peer> peers = new ArrayList<>();
        peers.add(Peer.NONE);
        peers.addAll(Peer.all().stream().filter(p -> p.kind() == Peer.Kind.TIMER || p == Peer.TICKWHEEL_SERVICE
                || p == Peer.POWERJOB_SERVICE
                || p == Peer.POWERJOB_TWO_TIER).toList());
        return peers;
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--child")) {
            child(args);
            return;
        }
        Map<Peer, ForkResult> result = run(BenchOptions.parse(args));
        System.out.println(Report.idleTable(result));
    }

    static long settleMs(BenchOptions options) {
        return options.quick() ? 1_000 : 3_000;
    }

    static long windowMs(BenchOptions options) {
        return options.quick() ? 2_000 : 10_000;
    }

    public static Map<Peer, ForkResult> run(BenchOptions options) {
        long settleMs = settleMs(options);
        long windowMs = windowMs(options);
        List<Peer> peers = options.peers() == null ? defaultPeers() : options.peersOr(defaultPeers());
        return ForkRunner.run("idle", IdleHarness.class, peers, options.forks(), Duration.ofMinutes(3),
                (peer, fork) -> List.of("--child", peer.id(), Integer.toString(PENDING), Long.toString(settleMs),
                        Long.toString(windowMs)));
    }

    private static void child(String[] args) throws Exception {
        Peer peer = Peer.byId(args[1]);
        int pending = Integer.parseInt(args[2]);
        long settleMs = Long.parseLong(args[3]);
        long windowMs = Long.parseLong(args[4]);
        Map<String, Object> result = new LinkedHashMap<>();
        Contender contender = peer.create(Math.max(1, pending));
        try {
            System.gc();
            Thread.sleep(settleMs);
            measure(windowMs, "empty", result);

            Runnable task = NoopTask.INSTANCE;
            for (int i = 0; i < pending; i++) {
                contender.schedule(i, HOUR_MS + i % 60_000, task);
            }
            System.gc();
            Thread.sleep(settleMs);
            measure(windowMs, "pending", result);
            ChildJvm.emit(result);
        } finally {
            contender.close();
        }
        System.exit(0);
    }

    /** CPU time of every live Java thread (ns precision, unlike the process figure's 10 ms clock ticks). */
    private static Map<Long, Long> javaThreadCpuNanos() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Map<Long, Long> cpu = new java.util.HashMap<>();
        for (long id : threads.getAllThreadIds()) {
            long nanos = threads.getThreadCpuTime(id);
            if (nanos >= 0) {
                cpu.put(id, nanos);
            }
        }
        return cpu;
    }

    private static void measure(long windowMs, String prefix, Map<String, Object> result)
            throws InterruptedException {
        OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        ThreadSwitches switchesBefore = ThreadSwitches.read();
        Map<Long, Long> threadCpuBefore = javaThreadCpuNanos();
        long cpuBefore = os.getProcessCpuTime();
        long wallBefore = System.nanoTime();
        Thread.sleep(windowMs);
        long cpuAfter = os.getProcessCpuTime();
        Map<Long, Long> threadCpuAfter = javaThreadCpuNanos();
        long wallAfter = System.nanoTime();
        ThreadSwitches switchesAfter = ThreadSwitches.read();
        double seconds = (wallAfter - wallBefore) / 1e9;
        result.put(prefix + "_cpu_ms_per_s", String.format(java.util.Locale.ROOT, "%.2f",
                (cpuAfter - cpuBefore) / 1e6 / seconds));
        long threadCpu = 0;
        for (Map.Entry<Long, Long> e : threadCpuAfter.entrySet()) {
            Long old = threadCpuBefore.get(e.getKey());
            if (old != null) {
                threadCpu += e.getValue() - old;
            }
        }
        result.put(prefix + "_jthreads_cpu_ms_per_s", String.format(java.util.Locale.ROOT, "%.3f",
                threadCpu / 1e6 / seconds));
        if (ThreadSwitches.supported()) {
            result.put(prefix + "_wakeups_per_s", String.format(java.util.Locale.ROOT, "%.1f",
                    switchesAfter.ratePerSecond(switchesBefore, seconds)));
            result.put(prefix + "_busiest", switchesAfter.busiest(switchesBefore, seconds));
        }
    }
}
