package dev.tickwheel.bench;

import dev.tickwheel.bench.peer.Peer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Command-line options shared by the suite and every harness run on its own.
 *
 * <pre>
 *   --quick            short windows and smaller sizes (the whole suite in under 5 minutes)
 *   --forks N          JVM forks per peer (default 3; 1 with --quick)
 *   --peers a,b,c      only these peers (ids from {@link Peer})
 *   --out DIR          where docs/benchmarks.md and the chart go (default ./docs)
 * </pre>
 *
 * <p>Immutable.
 */
public record BenchOptions(boolean quick, int forks, List<Peer> peers, Path outDir) {

    public static BenchOptions parse(String... args) {
        boolean quick = false;
        int forks = -1;
        List<Peer> peers = null;
        Path out = Path.of("docs");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--forks" -> forks = Integer.parseInt(value(args, ++i, "--forks"));
                case "--peers" -> peers = Arrays.stream(value(args, ++i, "--peers").split(","))
                        .map(Peer::byId).toList();
                case "--out" -> out = Path.of(value(args, ++i, "--out"));
                default -> throw new IllegalArgumentException("unknown option: " + args[i]
                        + " (known: --quick, --forks N, --peers a,b, --out DIR)");
            }
        }
        if (forks == -1) {
            forks = quick ? 1 : 3;
        }
        if (forks < 1) {
            throw new IllegalArgumentException("--forks must be at least 1: " + forks);
        }
        return new BenchOptions(quick, forks, peers, out);
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    /** The peers asked for, or {@code defaults} when none were. */
    public List<Peer> peersOr(List<Peer> defaults) {
        return peers == null ? defaults : peers.stream().filter(defaults::contains).toList();
    }
}
