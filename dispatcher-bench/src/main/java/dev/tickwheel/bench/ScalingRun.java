package dev.tickwheel.bench;

import dev.tickwheel.bench.jmh.ScheduleCancelBenchmark;
import dev.tickwheel.bench.peer.Peer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Runs {@link ScheduleCancelBenchmark} through the JMH API and keeps one score per JMH fork, so that the report shows
 * median and min–max over forks like every other table.
 *
 * <p>Run alone: {@code java -cp dispatcher-bench/target/benchmarks.jar dev.tickwheel.bench.ScalingRun [--quick]
 * [--forks N] [--peers a,b] [--ten-million]}.
 *
 * <p>Not thread-safe; a program step.
 */
public final class ScalingRun {

    public static final List<Integer> SIZES = List.of(1_000, 10_000, 100_000, 1_000_000);
    public static final List<Integer> QUICK_SIZES = List.of(1_000, 1_000_000);

    private ScalingRun() {
    }

    /** Result: peer → (pending → ns per schedule+cancel, per fork). */
    public record Result(List<Integer> sizes, Map<Peer, Map<Integer, Summary>> nanosPerOp) {
    }

    public static List<Peer> defaultPeers(boolean quick) {
        return quick ? Peer.ofKind(Peer.Kind.INSTANCE) : Peer.all();
    }

    public static void main(String[] args) throws RunnerException {
        boolean tenMillion = java.util.Arrays.asList(args).contains("--ten-million");
        BenchOptions options = BenchOptions.parse(java.util.Arrays.stream(args)
                .filter(a -> !a.equals("--ten-million")).toArray(String[]::new));
        System.out.println(Report.scalingTable(run(options, tenMillion)));
    }

    public static Result run(BenchOptions options, boolean withTenMillion) throws RunnerException {
        List<Integer> sizes = new ArrayList<>(options.quick() ? QUICK_SIZES : SIZES);
        if (withTenMillion) {
            sizes.add(10_000_000);
        }
        List<Peer> peers = options.peers() == null ? defaultPeers(options.quick())
                : options.peersOr(Peer.all());
        Options jmh = new OptionsBuilder()
                .include(ScheduleCancelBenchmark.class.getName() + ".scheduleThenCancel")
                .param("peer", peers.stream().map(Peer::id).toArray(String[]::new))
                .param("pending", sizes.stream().map(String::valueOf).toArray(String[]::new))
                .forks(options.forks())
                .warmupIterations(options.quick() ? 1 : 2)
                .warmupTime(TimeValue.seconds(1))
                .measurementIterations(options.quick() ? 2 : 3)
                .measurementTime(TimeValue.seconds(options.quick() ? 1 : 2))
                .jvmArgsAppend(ChildJvm.JVM_FLAGS.toArray(String[]::new))
                .verbosity(VerboseMode.SILENT)
                .build();
        Map<Peer, Map<Integer, Summary>> byPeer = new LinkedHashMap<>();
        peers.forEach(p -> byPeer.put(p, new LinkedHashMap<>()));
        for (RunResult run : new Runner(jmh).run()) {
            Peer peer = Peer.byId(run.getParams().getParam("peer"));
            int pending = Integer.parseInt(run.getParams().getParam("pending"));
            double[] perFork = run.getBenchmarkResults().stream()
                    .mapToDouble((BenchmarkResult r) -> r.getPrimaryResult().getScore()).toArray();
            byPeer.get(peer).put(pending, Summary.of(perFork));
            System.err.printf("[scaling] %-20s %,10d pending  %s ns/op%n", peer.id(), pending,
                    Summary.of(perFork).format("%.0f"));
        }
        return new Result(sizes, byPeer);
    }
}
