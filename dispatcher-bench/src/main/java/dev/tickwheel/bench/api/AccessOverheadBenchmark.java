package dev.tickwheel.bench.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tickwheel.bench.CommandLine;
import dev.tickwheel.bench.Machine;
import dev.tickwheel.bench.e2e.BenchDatabase;
import dev.tickwheel.fixtures.process.ServerLaunch;
import dev.tickwheel.fixtures.process.ServerProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What token checking and the audit trail add to an API call (issue 23), against the same calls without them, in one
 * run: three servers, each in a JVM of its own on a fresh store, called alike.
 *
 * <ul>
 *   <li>{@code baseline}: the server built before issue 23 ({@code --baseline-jar}), without a token: no check, no
 *       audit;</li>
 *   <li>{@code audit}: today's server without a token: every change audited (as {@code anonymous}), no check;</li>
 *   <li>{@code token+audit}: today's server with {@code --token}, called with an OPERATE token of the default
 *       namespace made through the API: the token found by the hash of its secret (cached), the namespace checked,
 *       every change audited.</li>
 * </ul>
 * Each server gets an API job; then {@code --concurrency} threads (8), each with its own keep-alive connection, call
 * for {@code --seconds} (10) after {@code --warmup-seconds} (5): first {@code POST /api/jobs/{id}/run} (a change:
 * checked and audited; due in 10 min, so nothing fires), then {@code GET /api/instances/{id}} of the runs made (a
 * read: checked only). Latency is measured per call by the client; the figures are p50 and p99 of all calls of a
 * phase, and the rounds ({@code --rounds}, 3) rotate which server goes first. The report: each server's median
 * (min–max) over the rounds, and the added latency (today's minus baseline) of each round's medians.
 *
 * <p>Run (from the repository root; the baseline jar built from the commit before issue 23, e.g. with
 * {@code git worktree add /tmp/base 61a8c96 && (cd /tmp/base && mvn -B -q -o package -DskipTests -pl dispatcher-server -am)}):
 * <pre>
 * mvn -B -q package -DskipTests
 * java -cp dispatcher-bench/target/benchmarks.jar dev.tickwheel.bench.api.AccessOverheadBenchmark \
 *     --baseline-jar /tmp/base/dispatcher-server/target/tickwheel-server.jar --db pg
 * </pre>
 * Options: {@code --server-jar} (default {@code dispatcher-server/target/tickwheel-server.jar}), {@code --db h2|pg},
 * {@code --pg-url}, {@code --rounds 3}, {@code --seconds 10}, {@code --warmup-seconds 5}, {@code --concurrency 8}.
 *
 * <p>Not thread-safe: a command-line program.
 */
public final class AccessOverheadBenchmark {

    private static final Duration UP_BOUND = Duration.ofMinutes(2);
    private static final String BOOTSTRAP = "bench-bootstrap-token";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The three servers. */
    enum Config {
        BASELINE("baseline"), AUDIT("audit"), TOKEN_AUDIT("token+audit");

        final String label;

        Config(String label) {
            this.label = label;
        }
    }

    /** One phase's figures: calls per second, p50 and p99 in microseconds. */
    record Phase(double callsPerSecond, long p50Micros, long p99Micros, long errors) {
    }

    /** One server's two phases. */
    record Run(Phase change, Phase read) {
    }

    private AccessOverheadBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        CommandLine cli = CommandLine.parse(args, Set.of("--baseline-jar", "--server-jar", "--db", "--pg-url",
                "--rounds", "--seconds", "--warmup-seconds", "--concurrency"));
        Path baselineJar = Path.of(cli.text("--baseline-jar", "/tmp/base/dispatcher-server/target/tickwheel-server.jar"));
        Path serverJar = Path.of(cli.text("--server-jar", "dispatcher-server/target/tickwheel-server.jar"));
        String db = cli.text("--db", "pg");
        String pgUrl = cli.text("--pg-url", BenchDatabase.DEFAULT_PG_URL);
        int rounds = cli.integer("--rounds", 3);
        int seconds = cli.integer("--seconds", 10);
        int warmup = cli.integer("--warmup-seconds", 5);
        int concurrency = cli.integer("--concurrency", 8);
        System.out.println("# Access overhead (issue 23): " + db + ", " + concurrency + " calls in flight, "
                + warmup + " s warm-up + " + seconds + " s per phase, " + rounds + " rounds");
        System.out.println("# machine: " + Machine.describe() + "; load " + Machine.loadAverage());
        Map<Config, List<Run>> runs = new EnumMap<>(Config.class);
        for (int round = 0; round < rounds; round++) {
            List<Config> order = new ArrayList<>(Arrays.asList(Config.values()));
            java.util.Collections.rotate(order, round);
            for (Config config : order) {
                try (BenchDatabase store = "h2".equals(db) ? BenchDatabase.h2() : BenchDatabase.postgres(pgUrl)) {
                    Run run = runOne(config, config == Config.BASELINE ? baselineJar : serverJar, store, warmup,
                            seconds, concurrency);
                    runs.computeIfAbsent(config, c -> new ArrayList<>()).add(run);
                    System.out.printf("round %d %-12s run: %,.0f/s p50 %d µs p99 %d µs (errors %d) | get: %,.0f/s"
                                    + " p50 %d µs p99 %d µs (errors %d)%n", round + 1, config.label,
                            run.change().callsPerSecond(), run.change().p50Micros(), run.change().p99Micros(),
                            run.change().errors(), run.read().callsPerSecond(), run.read().p50Micros(),
                            run.read().p99Micros(), run.read().errors());
                }
            }
        }
        report(runs);
    }

    private static Run runOne(Config config, Path jar, BenchDatabase store, int warmup, int seconds, int concurrency)
            throws Exception {
        List<String> args = new ArrayList<>(List.of("--port", "0", "--db-url", store.jdbcUrl()));
        if (config == Config.TOKEN_AUDIT) {
            args.addAll(List.of("--token", BOOTSTRAP));
        }
        ServerLaunch launch = ServerLaunch.ofJar(jar).withJvmFlags(List.of("-Xms512m", "-Xmx512m"));
        try (ServerProcess server = ServerProcess.start(launch, args)) {
            String base = server.awaitBaseUrl(UP_BOUND);
            HttpClient setup = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            String token = null;
            if (config == Config.TOKEN_AUDIT) {
                JsonNode created = send(setup, base, BOOTSTRAP, "POST", "/api/tokens",
                        "{\"name\": \"bench\", \"namespace\": \"default\", \"role\": \"OPERATE\"}");
                token = created.get("secret").asText();
            }
            JsonNode job = send(setup, base, config == Config.TOKEN_AUDIT ? BOOTSTRAP : null, "POST", "/api/jobs",
                    "{\"name\": \"bench\", \"schedule\": {\"type\": \"API\"}, \"target\": {\"type\": \"WEBHOOK\","
                            + " \"url\": \"http://127.0.0.1:9/x\"}}");
            String jobId = job.get("id").asText();
            List<String> instances = java.util.Collections.synchronizedList(new ArrayList<>());
            String auth = token;
            Phase change = phase(base, auth, concurrency, warmup, seconds,
                    client -> call(client, base, auth, "POST", "/api/jobs/" + jobId + "/run",
                            "{\"delayMs\": 600000}", instances));
            List<String> ids = new ArrayList<>(instances);
            AtomicLong next = new AtomicLong();
            Phase read = phase(base, auth, concurrency, warmup, seconds,
                    client -> call(client, base, auth, "GET",
                            "/api/instances/" + ids.get((int) (next.getAndIncrement() % ids.size())), null, null));
            server.terminate(Duration.ofSeconds(30));
            return new Run(change, read);
        }
    }

    /** One call; true if it answered 2xx. */
    @FunctionalInterface
    private interface Call {
        boolean call(HttpClient client) throws Exception;
    }

    private static Phase phase(String base, String token, int concurrency, int warmup, int seconds, Call call)
            throws InterruptedException {
        long warmEnd = System.nanoTime() + Duration.ofSeconds(warmup).toNanos();
        long end = warmEnd + Duration.ofSeconds(seconds).toNanos();
        List<long[]> samples = new ArrayList<>();
        AtomicLong errors = new AtomicLong();
        AtomicLong counted = new AtomicLong();
        CountDownLatch done = new CountDownLatch(concurrency);
        int[] kept = new int[concurrency];
        for (int t = 0; t < concurrency; t++) {
            long[] mine = new long[2_000_000];
            samples.add(mine);
            int index = t;
            Thread thread = new Thread(() -> {
                HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                int n = 0;
                try {
                    while (true) {
                        long start = System.nanoTime();
                        if (start >= end) {
                            break;
                        }
                        boolean ok = call.call(client);
                        long took = System.nanoTime() - start;
                        if (start >= warmEnd) {
                            if (ok && n < mine.length) {
                                mine[n++] = took;
                            } else if (!ok) {
                                errors.incrementAndGet();
                            }
                        }
                    }
                } catch (Exception e) {
                    System.err.println("caller " + index + " stopped: " + e);
                    errors.incrementAndGet();
                } finally {
                    counted.addAndGet(n);
                    kept[index] = n;
                    done.countDown();
                }
            }, "access-bench-" + t);
            thread.start();
        }
        done.await();
        long total = counted.get();
        long[] all = new long[(int) total];
        int at = 0;
        for (int t = 0; t < concurrency; t++) {
            System.arraycopy(samples.get(t), 0, all, at, kept[t]);
            at += kept[t];
        }
        Arrays.sort(all);
        return new Phase(total / (double) seconds, percentile(all, 0.50) / 1_000, percentile(all, 0.99) / 1_000,
                errors.get());
    }

    private static long percentile(long[] sorted, double p) {
        return sorted.length == 0 ? 0 : sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
    }

    private static boolean call(HttpClient client, String base, String token, String method, String path,
                                String body, List<String> createdInstances) throws IOException, InterruptedException {
        HttpResponse<String> response = client.send(request(base, token, method, path, body),
                HttpResponse.BodyHandlers.ofString());
        boolean ok = response.statusCode() / 100 == 2;
        if (ok && createdInstances != null && createdInstances.size() < 100_000) {
            createdInstances.add(JSON.readTree(response.body()).get("instanceId").asText());
        }
        return ok;
    }

    private static JsonNode send(HttpClient client, String base, String token, String method, String path,
                                 String body) throws IOException, InterruptedException {
        HttpResponse<String> response = client.send(request(base, token, method, path, body),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            throw new IllegalStateException(method + " " + path + " answered " + response.statusCode() + ": "
                    + response.body());
        }
        return JSON.readTree(response.body());
    }

    private static HttpRequest request(String base, String token, String method, String path, String body) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(10))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            builder.header("Content-Type", "application/json");
        }
        if (token != null) {
            builder.header("Authorization", "Bearer " + token);
        }
        return builder.build();
    }

    private static void report(Map<Config, List<Run>> runs) {
        System.out.println();
        System.out.println("| server | run: calls/s | run p50 µs | run p99 µs | get: calls/s | get p50 µs | get p99 µs |");
        System.out.println("| --- | --- | --- | --- | --- | --- | --- |");
        for (Config config : Config.values()) {
            List<Run> rs = runs.get(config);
            System.out.println("| " + config.label + " | " + median(rs, r -> r.change().callsPerSecond()) + " | "
                    + median(rs, r -> r.change().p50Micros()) + " | " + median(rs, r -> r.change().p99Micros())
                    + " | " + median(rs, r -> r.read().callsPerSecond()) + " | "
                    + median(rs, r -> r.read().p50Micros()) + " | " + median(rs, r -> r.read().p99Micros()) + " |");
        }
        System.out.println();
        System.out.println("Added latency (today minus baseline, per round, median (min–max)):");
        for (Config config : List.of(Config.AUDIT, Config.TOKEN_AUDIT)) {
            List<Run> rs = runs.get(config);
            List<Run> base = runs.get(Config.BASELINE);
            List<Double> runP50 = new ArrayList<>();
            List<Double> runP99 = new ArrayList<>();
            List<Double> getP50 = new ArrayList<>();
            List<Double> getP99 = new ArrayList<>();
            for (int i = 0; i < rs.size(); i++) {
                runP50.add((double) rs.get(i).change().p50Micros() - base.get(i).change().p50Micros());
                runP99.add((double) rs.get(i).change().p99Micros() - base.get(i).change().p99Micros());
                getP50.add((double) rs.get(i).read().p50Micros() - base.get(i).read().p50Micros());
                getP99.add((double) rs.get(i).read().p99Micros() - base.get(i).read().p99Micros());
            }
            System.out.println("- " + config.label + ": run p50 " + spread(runP50) + " µs, p99 " + spread(runP99)
                    + " µs; get p50 " + spread(getP50) + " µs, p99 " + spread(getP99) + " µs");
        }
    }

    private static String median(List<Run> runs, java.util.function.ToDoubleFunction<Run> figure) {
        List<Double> values = new ArrayList<>();
        runs.forEach(r -> values.add(figure.applyAsDouble(r)));
        return spread(values);
    }

    private static String spread(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(null);
        double median = sorted.get(sorted.size() / 2);
        return String.format("%,.0f (%,.0f–%,.0f)", median, sorted.get(0), sorted.get(sorted.size() - 1));
    }
}
