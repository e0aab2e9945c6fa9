package dev.tickwheel.bench;

import dev.tickwheel.bench.peer.Peer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The whole benchmark suite in one run: lateness, idle cost, memory, throughput and scaling of Tickwheel and its peers,
 * written to {@code docs/benchmarks.md} with the lateness CDF chart {@code docs/lateness-cdf.svg}.
 *
 * <p>Run from the repository root:
 * <pre>
 * mvn -B -q -pl dispatcher-bench -am package -DskipTests
 * java -cp dispatcher-bench/target/benchmarks.jar dev.tickwheel.bench.Suite --quick     # about 4 minutes, 1 fork
 * java -cp dispatcher-bench/target/benchmarks.jar dev.tickwheel.bench.Suite             # about 1 hour, 3 forks
 * </pre>
 * Options: {@code --forks N}, {@code --out DIR}, {@code --two-tier} (the 60–180 s hand-off lateness case, on by
 * default in the full run), {@code --no-two-tier}, {@code --ten-million} (scaling at 10⁷ pending), {@code --skip-jmh}.
 *
 * <p>Not thread-safe; a program.
 */
public final class Suite {

    private Suite() {
    }

    public static void main(String[] args) throws Exception {
        List<String> rest = new ArrayList<>(Arrays.asList(args));
        boolean twoTierFlag = rest.remove("--two-tier");
        boolean noTwoTier = rest.remove("--no-two-tier");
        boolean tenMillion = rest.remove("--ten-million");
        boolean skipJmh = rest.remove("--skip-jmh");
        BenchOptions options = BenchOptions.parse(rest.toArray(String[]::new));
        boolean twoTier = twoTierFlag || (!options.quick() && !noTwoTier);

        long start = System.nanoTime();
        String loadBefore = Machine.loadAverage();
        ZonedDateTime date = ZonedDateTime.now(ZoneOffset.UTC);

        LatenessHarness.Result lateness = LatenessHarness.run(options);
        LatenessHarness.Result twoTierLateness = twoTier ? LatenessHarness.runTwoTier(options) : null;
        Map<Peer, ForkResult> idle = IdleHarness.run(options);
        Map<Peer, ForkResult> memory = MemoryHarness.run(options);
        Map<Peer, ForkResult> throughput = ThroughputHarness.run(options);
        ScalingRun.Result scaling = skipJmh ? null : ScalingRun.run(options, tenMillion);
        String loadAfter = Machine.loadAverage();
        double minutes = (System.nanoTime() - start) / 60e9;

        Files.createDirectories(options.outDir());
        LatenessChart.write(lateness.samplesNanos(), "Fire lateness, 20 000 timers over 0–2 s (all forks pooled)",
                options.outDir().resolve("lateness-cdf.svg"));
        if (twoTierLateness != null) {
            LatenessChart.write(twoTierLateness.samplesNanos(),
                    "Fire lateness, two-tier, 2 000 timers over 60–180 s (all forks pooled)",
                    options.outDir().resolve("lateness-2tier-cdf.svg"));
        }
        Path markdown = options.outDir().resolve("benchmarks.md");
        String kept = SuiteReport.keptNotes(markdown);
        String text = new SuiteReport(options, String.join(" ", args), date, loadBefore, loadAfter, minutes,
                lateness, twoTierLateness, idle, memory, throughput, scaling).render() + kept;
        Files.writeString(markdown, text, StandardCharsets.UTF_8);
        System.err.printf("wrote %s in %.1f minutes%n", markdown, minutes);
        System.exit(0);
    }
}
