package dev.tickwheel.bench.api;

import dev.tickwheel.bench.CommandLine;
import dev.tickwheel.bench.e2e.BenchDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * What an {@link ApiLoadBenchmark} run does, and at which sizes. {@link #DEFAULTS} is what docs/api-benchmark.md's
 * numbers use.
 *
 * <p>Immutable.
 *
 * @param concurrency  requests in flight (one client thread each, one keep-alive connection each), and the ceiling's
 *                     JDBC threads
 * @param measure      each phase is measured this long, after its warm-up
 * @param warmUp       each phase first runs this long unmeasured
 * @param rounds       every phase runs once per round; the report gives the median (min–max) over the rounds
 * @param delayMs      every run's {@code delayMs}: its instance is due this long after the call, so nothing fires
 *                     during a round (each round's leftovers are cancelled at its end)
 * @param batchSize    runs in one {@code POST /api/jobs/{id}/runs} and ids in one {@code POST /api/instances/cancel};
 *                     also the ceiling's large transaction
 * @param smallGroup   the ceiling's small transaction (rows an insert or cancel transaction carries)
 * @param parts        what to measure: the HTTP API, the JDBC ceiling, or both
 * @param client       which client sends the single calls (figures 1 to 3b): the JVM client in this process, wrk in
 *                     a process of its own, or both (each its own rows); the batch calls (4a, 4b) always use the JVM
 *                     client
 * @param wrk          the wrk executable ({@code --client wrk} or {@code both})
 * @param serverWarmUp before round 1, the single calls are sent this long in all (a quarter each, untimed, JVM
 *                     client) so that round 1's first figure does not measure a server the JIT has not compiled yet;
 *                     zero for none
 * @param pgUrl        the PostgreSQL server; the run gets a fresh schema on it, dropped at the end
 * @param serverJar    the server under test ({@code java -jar}); null: {@code dev.tickwheel.server.app.Main} on this
 *                     JVM's class path
 * @param logDir       where the server's output goes
 * @param out          the Markdown file whose "Results" section the run writes; null: only printed
 */
record ApiLoadSettings(int concurrency, Duration measure, Duration warmUp, int rounds, long delayMs, int batchSize,
                       int smallGroup, List<Part> parts, Client client, Path wrk, Duration serverWarmUp, String pgUrl,
                       Path serverJar, Path logDir, Path out) {

    /** A half of the benchmark. */
    enum Part {
        /** The scheduling calls over HTTP, against the server process. */
        API,
        /** The same statements from bare JDBC, on the same database. */
        CEILING;

        static Part of(String id) {
            for (Part p : values()) {
                if (p.name().toLowerCase(Locale.ROOT).equals(id)) {
                    return p;
                }
            }
            throw new IllegalArgumentException("--parts must be api, ceiling or both (comma-separated): " + id);
        }
    }

    /** Which client sends the single calls. */
    enum Client {
        /** Apache HttpClient 5 (classic), one thread per request in flight, in the benchmark's JVM. */
        JVM(true, false),
        /** wrk, a C load generator, in a process of its own. */
        WRK(false, true),
        /** Both, one after the other: each single-call figure once with each. */
        BOTH(true, true);

        private final boolean jvm;
        private final boolean wrk;

        Client(boolean jvm, boolean wrk) {
            this.jvm = jvm;
            this.wrk = wrk;
        }

        /** The JVM client sends the single calls. */
        boolean jvm() {
            return jvm;
        }

        /** wrk sends the single calls. */
        boolean wrk() {
            return wrk;
        }

        /** {@code both} if {@code wrk} is an executable file, else {@code jvm}. */
        static Client defaultFor(Path wrk) {
            return Files.isExecutable(wrk) ? BOTH : JVM;
        }

        static Client of(String id) {
            for (Client c : values()) {
                if (c.name().toLowerCase(Locale.ROOT).equals(id)) {
                    return c;
                }
            }
            throw new IllegalArgumentException("--client must be jvm, wrk or both: " + id);
        }
    }

    /** Where Debian's wrk package puts it. */
    static final Path DEFAULT_WRK = Path.of("/usr/bin/wrk");

    /** Where {@code mvn package} puts the server jar, relative to the repository root. */
    static final Path DEFAULT_SERVER_JAR = Path.of("dispatcher-server", "target", "tickwheel-server.jar");

    /** {@code --server-jar classpath}: run the server from this JVM's class path instead of a jar. */
    static final String CLASS_PATH = "classpath";

    /** The server JVM's flags: the heap of the webhook and cluster benchmarks' servers. */
    static final List<String> SERVER_FLAGS = List.of("-Xms1g", "-Xmx1g", "-XX:+UseG1GC", "-Djava.awt.headless=true");

    static final ApiLoadSettings DEFAULTS = new ApiLoadSettings(32, Duration.ofSeconds(10), Duration.ofSeconds(3), 3,
            600_000, 1_000, 32, List.of(Part.API, Part.CEILING), Client.defaultFor(DEFAULT_WRK), DEFAULT_WRK,
            Duration.ofSeconds(15), BenchDatabase.DEFAULT_PG_URL,
            Files.isRegularFile(DEFAULT_SERVER_JAR) ? DEFAULT_SERVER_JAR : null,
            Path.of(System.getProperty("java.io.tmpdir"), "tickwheel-api-bench"), null);

    /** The options {@link #with} reads. */
    static final Set<String> OPTIONS = Set.of("--concurrency", "--seconds", "--warmup-seconds", "--rounds",
            "--delay-ms", "--batch-size", "--small-group", "--parts", "--client", "--wrk", "--server-warmup-seconds",
            "--pg-url", "--server-jar", "--log-dir", "--out");

    ApiLoadSettings {
        Objects.requireNonNull(measure, "measure");
        Objects.requireNonNull(warmUp, "warmUp");
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(wrk, "wrk");
        Objects.requireNonNull(serverWarmUp, "serverWarmUp");
        Objects.requireNonNull(pgUrl, "pgUrl");
        Objects.requireNonNull(logDir, "logDir");
        parts = List.copyOf(parts);
        positive("--concurrency", concurrency);
        positive("--seconds", measure.toSeconds());
        positive("--rounds", rounds);
        positive("--batch-size", batchSize);
        positive("--small-group", smallGroup);
        if (warmUp.isNegative()) {
            throw new IllegalArgumentException("--warmup-seconds must not be negative: " + warmUp.toSeconds());
        }
        if (serverWarmUp.isNegative()) {
            throw new IllegalArgumentException("--server-warmup-seconds must not be negative: "
                    + serverWarmUp.toSeconds());
        }
        if (delayMs < 60_000) {
            // shorter delays put the instances on the precise wheel and may fire them during the round
            throw new IllegalArgumentException("--delay-ms must be at least 60000: " + delayMs);
        }
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("--parts names nothing to measure");
        }
    }

    /** These settings with the options of {@code line} applied. */
    ApiLoadSettings with(CommandLine line) {
        Path jar = serverJar;
        if (line.has("--server-jar")) {
            String value = line.text("--server-jar", "");
            jar = value.equals(CLASS_PATH) ? null : Path.of(value);
            if (jar != null && !Files.isRegularFile(jar)) {
                throw new IllegalArgumentException("--server-jar names no file: " + value);
            }
        }
        Path wrkPath = Path.of(line.text("--wrk", wrk.toString()));
        Client chosen = line.has("--client") ? Client.of(line.text("--client", "").trim().toLowerCase(Locale.ROOT))
                : line.has("--wrk") ? Client.defaultFor(wrkPath) : client;
        if (chosen.wrk() && !Files.isExecutable(wrkPath)) {
            throw new IllegalArgumentException("--client " + chosen.name().toLowerCase(Locale.ROOT) + " needs wrk,"
                    + " which is not an executable file at " + wrkPath + " (--wrk PATH; Debian: apt-get install wrk)");
        }
        return new ApiLoadSettings(
                line.integer("--concurrency", concurrency),
                Duration.ofSeconds(line.number("--seconds", measure.toSeconds())),
                Duration.ofSeconds(line.number("--warmup-seconds", warmUp.toSeconds())),
                line.integer("--rounds", rounds),
                line.number("--delay-ms", delayMs),
                line.integer("--batch-size", batchSize),
                line.integer("--small-group", smallGroup),
                line.list("--parts", parts.stream().map(p -> p.name().toLowerCase(Locale.ROOT)).toList()).stream()
                        .map(Part::of).distinct().toList(),
                chosen,
                wrkPath,
                Duration.ofSeconds(line.number("--server-warmup-seconds", serverWarmUp.toSeconds())),
                line.text("--pg-url", pgUrl),
                jar,
                Path.of(line.text("--log-dir", logDir.toString())),
                line.has("--out") ? Path.of(line.text("--out", "")) : out);
    }

    boolean measures(Part part) {
        return parts.contains(part);
    }

    /** Whether this run measures {@code figure}: its part, and for a single call, its client. */
    boolean measures(Figure figure) {
        if (!figure.api()) {
            return measures(Part.CEILING);
        }
        if (!measures(Part.API)) {
            return false;
        }
        return !figure.single() || (figure.wrk() ? client.wrk() : client.jvm());
    }

    private static void positive(String option, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(option + " must be positive: " + value);
        }
    }
}
