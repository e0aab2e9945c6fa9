package dev.tickwheel.bench.cluster;

import dev.tickwheel.bench.CommandLine;
import dev.tickwheel.bench.e2e.BenchDatabase;
import dev.tickwheel.fixtures.process.ServerLaunch;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * What a {@code ClusterBenchmark} run does, and at which sizes. {@link #DEFAULTS} is what docs/cluster.md's numbers
 * use; {@link #tiny()} what the smoke test runs.
 *
 * <p>Immutable.
 *
 * @param modes            what to measure, in this order
 * @param members          TAKEOVER, GRACEFUL: server processes in the cluster
 * @param kills            TAKEOVER: rounds of {@code kill -9} (the victim rotates over the members)
 * @param stops            GRACEFUL: rounds of {@code SIGTERM}
 * @param jobs             TAKEOVER, GRACEFUL: on-demand webhook jobs created through the API (enough that every
 *                         member holds some of their shards)
 * @param runGapMinMs      TAKEOVER, GRACEFUL: a run is sent every {@code runGapMinMs..runGapMaxMs} (uniform)
 * @param runGapMaxMs      see above
 * @param runDelayMs       TAKEOVER, GRACEFUL: each run's {@code delayMs}: it falls due this long after it was sent
 * @param warmUpMs         TAKEOVER, GRACEFUL: runs flow this long before the first round
 * @param observeMs        TAKEOVER, GRACEFUL: a round watches the victim's shards this long after the signal (the
 *                         lateness window) before the victim is restarted
 * @param settleMs         TAKEOVER, GRACEFUL: the pause after the restarted member has its share, before the next
 *                         round
 * @param leaseTtlMs       every member's {@code --lease-ttl-ms}
 * @param leaseRenewMs     every member's {@code --lease-renew-ms}
 * @param throughputNodes  THROUGHPUT: cluster sizes measured, alternating, {@code runs} times each
 * @param runs             THROUGHPUT: runs of each cluster size
 * @param instances        THROUGHPUT: instances created ahead, all WAITING, spread over {@code instanceJobs} jobs
 * @param instanceJobs     THROUGHPUT: see above
 * @param leadMs           THROUGHPUT: the first instance is due this long after the members are started (they
 *                         must have joined and spread the shards by then)
 * @param spreadMs         THROUGHPUT: the instances are due evenly over this (each job's every
 *                         {@code spreadMs / (instances / instanceJobs)})
 * @param maxCallsInFlight every member's {@code --max-calls-in-flight}; 0: the server's default
 * @param maxCallsPerHost  every member's {@code --max-calls-per-host}; 0: the server's default
 * @param callTimeoutMs    every member's {@code --call-timeout-ms}; 0: the server's default
 * @param timeout          THROUGHPUT: one run is given up (failed) after this
 * @param cancels          CANCEL: runs created on one member and cancelled through another, one after the other,
 *                         under the take-over runs' steady load ({@code jobs}, {@code runGap*}, {@code runDelayMs},
 *                         {@code warmUpMs}) on {@code members} members
 * @param cancelGapMs      CANCEL: the pause after each cancel
 * @param receiverLatencyMs THROUGHPUT: the receiver answers each call this long after it arrived (0: at once); with
 *                         a latency, one member's limit is its calls in flight per host divided by it
 * @param pgUrl            the PostgreSQL server; each run gets a fresh schema on it, dropped after
 * @param logDir           where every server process's output goes
 * @param seed             of the run stream's gaps
 */
public record ClusterSettings(List<Mode> modes, int members, int kills, int stops, int jobs, long runGapMinMs,
                              long runGapMaxMs, long runDelayMs, long warmUpMs, long observeMs, long settleMs,
                              long leaseTtlMs, long leaseRenewMs, List<Integer> throughputNodes, int runs,
                              int instances, int instanceJobs, long leadMs, long spreadMs, int maxCallsInFlight,
                              int maxCallsPerHost, long callTimeoutMs, Duration timeout, int cancels, long cancelGapMs,
                              long receiverLatencyMs, String pgUrl, Path logDir, long seed) {

    /** What a run measures. */
    public enum Mode {
        /** {@code kill -9} a member, round after round: how soon its shards' instances fire again. */
        TAKEOVER,
        /** {@code SIGTERM} a member, round after round: how long the stop takes and how soon its shards fire again. */
        GRACEFUL,
        /** Instances created ahead and due at once, on 1 and on 3 members: dispatch rate and database work. */
        THROUGHPUT,
        /** Runs cancelled through a member other than their creator, under load: the cancel call's latency. */
        CANCEL;

        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** @throws IllegalArgumentException naming the text and the choices */
        public static Mode of(String id) {
            for (Mode m : values()) {
                if (m.id().equals(id)) {
                    return m;
                }
            }
            throw new IllegalArgumentException("--mode must be takeover, graceful, throughput or cancel (comma-separated):"
                    + " " + id);
        }
    }

    /** The JVM flags of every member: the webhook benchmark's server flags, the server's own logging (INFO). */
    public static final List<String> MEMBER_FLAGS = List.of("-Xms1g", "-Xmx1g", "-XX:+UseG1GC",
            "-Djava.awt.headless=true");

    /** How every member starts: {@code dev.tickwheel.server.app.Main} on the benchmark's class path, MEMBER_FLAGS. */
    static ServerLaunch memberLaunch() {
        return ServerLaunch.onThisClassPath().withJvmFlags(MEMBER_FLAGS);
    }

    /** The sizes docs/cluster.md's numbers use. */
    public static final ClusterSettings DEFAULTS = new ClusterSettings(List.of(Mode.values()), 3, 20, 20, 256, 20, 50,
            1_000, 10_000, 10_000, 2_000, 5_000, 1_000, List.of(1, 3), 3, 100_000, 1_000, 30_000, 2_000, 0, 0, 0,
            Duration.ofMinutes(5), 2_000, 5, 0, BenchDatabase.DEFAULT_PG_URL,
            Path.of(System.getProperty("java.io.tmpdir"), "tickwheel-cluster-bench"), 1L);

    /** The options {@link #with} reads. */
    public static final Set<String> OPTIONS = Set.of("--mode", "--members", "--kills", "--stops", "--jobs",
            "--run-gap-min-ms", "--run-gap-max-ms", "--run-delay-ms", "--warm-up-s", "--observe-s", "--settle-ms",
            "--lease-ttl-ms", "--lease-renew-ms", "--nodes", "--runs", "--instances", "--instance-jobs", "--lead-ms",
            "--spread-ms", "--max-calls-in-flight", "--max-calls-per-host", "--call-timeout-ms", "--timeout-s",
            "--cancels", "--cancel-gap-ms", "--receiver-latency-ms", "--pg-url", "--log-dir", "--seed");

    public ClusterSettings {
        modes = List.copyOf(modes);
        throughputNodes = List.copyOf(throughputNodes);
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(pgUrl, "pgUrl");
        Objects.requireNonNull(logDir, "logDir");
        positive("members", members);
        positive("jobs", jobs);
        positive("runGapMinMs", runGapMinMs);
        positive("runs", runs);
        positive("instances", instances);
        positive("instanceJobs", instanceJobs);
        positive("leaseTtlMs", leaseTtlMs);
        positive("leaseRenewMs", leaseRenewMs);
        if (modes.isEmpty()) {
            throw new IllegalArgumentException("modes must not be empty");
        }
        if (kills < 0 || stops < 0 || warmUpMs < 0 || observeMs < 0 || settleMs < 0 || leadMs < 0 || spreadMs < 0
                || runDelayMs < 0 || cancels < 0 || cancelGapMs < 0 || receiverLatencyMs < 0 || maxCallsInFlight < 0 || maxCallsPerHost < 0 || callTimeoutMs < 0) {
            throw new IllegalArgumentException("counts and times must not be negative: kills " + kills + ", stops "
                    + stops + ", warmUpMs " + warmUpMs + ", observeMs " + observeMs + ", settleMs " + settleMs
                    + ", leadMs " + leadMs + ", spreadMs " + spreadMs + ", runDelayMs " + runDelayMs
                    + ", cancels " + cancels + ", cancelGapMs " + cancelGapMs + ", receiverLatencyMs " + receiverLatencyMs
                    + ", limits " + maxCallsInFlight + "/" + maxCallsPerHost + ", callTimeoutMs " + callTimeoutMs);
        }
        if (runGapMaxMs < runGapMinMs) {
            throw new IllegalArgumentException("runGapMaxMs (" + runGapMaxMs + ") must not be below runGapMinMs ("
                    + runGapMinMs + ")");
        }
        if (instances % instanceJobs != 0) {
            throw new IllegalArgumentException("instances (" + instances + ") must be a multiple of instanceJobs ("
                    + instanceJobs + ")");
        }
        for (int n : throughputNodes) {
            positive("throughput node count", n);
        }
    }

    /** A size each mode runs in well under a minute: the smoke test's. */
    public static ClusterSettings tiny(String pgUrl, Path logDir) {
        return new ClusterSettings(List.of(Mode.TAKEOVER, Mode.THROUGHPUT, Mode.CANCEL), 3, 1, 1, 48, 20, 40, 1_000,
                2_000, 7_000, 0, 5_000, 1_000, List.of(1), 1, 2_000, 100, 12_000, 1_000, 0, 0, 0,
                Duration.ofSeconds(60), 30, 0, 0, pgUrl, logDir, 1L);
    }

    /**
     * These settings with the given options (names from {@link #OPTIONS}) applied.
     *
     * @throws IllegalArgumentException naming the option if a name is unknown or a value bad
     */
    public ClusterSettings with(CommandLine o) {
        List<Mode> modeList = o.has("--mode") ? o.list("--mode", List.of()).stream().map(Mode::of).distinct().toList()
                : modes;
        List<Integer> nodes = new ArrayList<>();
        for (String n : o.list("--nodes", throughputNodes.stream().map(String::valueOf).toList())) {
            try {
                nodes.add(Integer.parseInt(n));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--nodes needs whole numbers, e.g. 1,3: " + o.text("--nodes", ""),
                        e);
            }
        }
        return new ClusterSettings(modeList, o.integer("--members", members), o.integer("--kills", kills),
                o.integer("--stops", stops), o.integer("--jobs", jobs), o.number("--run-gap-min-ms", runGapMinMs),
                o.number("--run-gap-max-ms", runGapMaxMs), o.number("--run-delay-ms", runDelayMs),
                o.number("--warm-up-s", warmUpMs / 1000) * 1000, o.number("--observe-s", observeMs / 1000) * 1000,
                o.number("--settle-ms", settleMs), o.number("--lease-ttl-ms", leaseTtlMs),
                o.number("--lease-renew-ms", leaseRenewMs), nodes, o.integer("--runs", runs),
                o.integer("--instances", instances), o.integer("--instance-jobs", instanceJobs),
                o.number("--lead-ms", leadMs), o.number("--spread-ms", spreadMs),
                o.integer("--max-calls-in-flight", maxCallsInFlight), o.integer("--max-calls-per-host", maxCallsPerHost),
                o.number("--call-timeout-ms", callTimeoutMs),
                Duration.ofSeconds(o.number("--timeout-s", timeout.toSeconds())), o.integer("--cancels", cancels),
                o.number("--cancel-gap-ms", cancelGapMs), o.number("--receiver-latency-ms", receiverLatencyMs),
                o.text("--pg-url", pgUrl),
                Path.of(o.text("--log-dir", logDir.toString())), o.number("--seed", seed));
    }

    /** The server flags every member gets besides {@code --port} and {@code --db-url}. */
    List<String> serverArgs() {
        List<String> args = new ArrayList<>(List.of("--lease-ttl-ms", Long.toString(leaseTtlMs), "--lease-renew-ms",
                Long.toString(leaseRenewMs)));
        if (maxCallsInFlight > 0) {
            args.addAll(List.of("--max-calls-in-flight", Integer.toString(maxCallsInFlight)));
        }
        if (maxCallsPerHost > 0) {
            args.addAll(List.of("--max-calls-per-host", Integer.toString(maxCallsPerHost)));
        }
        if (callTimeoutMs > 0) {
            args.addAll(List.of("--call-timeout-ms", Long.toString(callTimeoutMs)));
        }
        return args;
    }

    /** One line for the report: the settings that shape the numbers. */
    public String describe(Mode mode) {
        String server = String.join(" ", serverArgs());
        return switch (mode) {
            case TAKEOVER, GRACEFUL -> members + " members, " + jobs + " API-scheduled webhook jobs, a run every "
                    + runGapMinMs + "-" + runGapMaxMs + " ms due " + runDelayMs + " ms after it is sent, "
                    + (mode == Mode.TAKEOVER ? kills + " kill -9" : stops + " SIGTERM") + " rounds (victim rotating),"
                    + " lateness window " + observeMs / 1000 + " s; server flags `" + server + "`";
            case THROUGHPUT -> Arrays.toString(throughputNodes.toArray()) + " members, " + runs + " runs each"
                    + " (alternating), " + instances + " instances over " + instanceJobs + " jobs created ahead, due"
                    + " over " + spreadMs + " ms from " + leadMs + " ms after the members start, receiver answers 200"
                    + (receiverLatencyMs == 0 ? " at once" : " after " + receiverLatencyMs + " ms") + "; server flags `" + server + "`";
            case CANCEL -> members + " members, " + cancels + " runs each created on one member and cancelled"
                    + " through " + (members > 1 ? "the next" : "the same") + " member, " + cancelGapMs + " ms apart,"
                    + " under a run every " + runGapMinMs + "-" + runGapMaxMs + " ms over " + jobs + " jobs; server"
                    + " flags `" + server + "`";
        };
    }

    private static void positive(String name, long value) {
        if (value < 1) {
            throw new IllegalArgumentException(name + " must be positive: " + value);
        }
    }
}
