package dev.tickwheel.server;

import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.store.jdbc.JdbcStoreConfig;
import dev.tickwheel.time.ScheduleSpec;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code java -jar tickwheel-server.jar [--demo] [--db-url URL] [--node-id N]}: runs the dispatch engine on its store
 * (embedded H2 under ./data by default) until SIGTERM. Flags win over environment variables
 * ({@code TICKWHEEL_DB_URL}, {@code TICKWHEEL_NODE_ID}); this is the one place that reads either.
 */
public final class Main {

    private static final Logger log = LoggerFactory.getLogger(Main.class);

    private Main() {
    }

    public static void main(String[] args) throws InterruptedException {
        Deque<String> rest = new ArrayDeque<>(List.of(args));
        boolean demo = false;
        String dbUrl = env("TICKWHEEL_DB_URL", JdbcStoreConfig.DEFAULT_JDBC_URL);
        int nodeId = Integer.parseInt(env("TICKWHEEL_NODE_ID", "0"));
        while (!rest.isEmpty()) {
            String arg = rest.removeFirst();
            switch (arg) {
                case "--demo" -> demo = true;
                case "--db-url" -> dbUrl = value(rest, arg);
                case "--node-id" -> nodeId = Integer.parseInt(value(rest, arg));
                case "--help", "-h" -> {
                    System.out.println(usage());
                    return;
                }
                default -> {
                    System.err.println("unknown argument: " + arg + "\n" + usage());
                    System.exit(2);
                }
            }
        }
        TickwheelServer.Builder builder = TickwheelServer.builder().jdbcUrl(dbUrl).nodeId(nodeId);
        if (demo) {
            builder.handler("demo-log", ctx -> log.info("demo: ran instance {} of '{}' (attempt {}, due {})",
                    ctx.instanceId(), ctx.jobName(), ctx.attempt(), ctx.expectedTriggerTime()));
            builder.handler("demo-flaky", ctx -> {
                if (ThreadLocalRandom.current().nextInt(3) == 0) {
                    throw new IllegalStateException("demo: simulated failure");
                }
                log.info("demo: flaky job succeeded on attempt {}", ctx.attempt());
            });
        }
        TickwheelServer server = builder.build().start();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            log.info("stopping: pending instances stay WAITING in the store");
            server.close();
            stopped.countDown();
        }, "tickwheel-shutdown"));
        if (demo) {
            registerDemoJobs(server);
        }
        while (!stopped.await(5, TimeUnit.SECONDS)) {
            Map<InstanceStatus, Long> counts = server.instances().countByStatus();
            log.info("status: instances {} | wheel pending {} (precise {}, coarse {}) | loader runs {}",
                    counts, server.wheel().pendingCount(), server.wheel().preciseWheelStats().pending(),
                    server.wheel().coarseWheelStats().pending(), server.loaderStats().runs());
        }
    }

    private static void registerDemoJobs(TickwheelServer server) {
        if (server.jobs().list(0, 1).items().size() > 0) {
            log.info("demo: jobs already exist in the store; not adding more");
            return;
        }
        server.jobs().create(JobSpec.of("every 5 s (cron)", ScheduleSpec.cron("*/5 * * * * ?", "UTC"),
                Target.handler("demo-log")));
        server.jobs().create(JobSpec.of("every 7 s (fixed rate)", ScheduleSpec.fixedRate(7_000, null),
                Target.handler("demo-log")));
        server.jobs().create(JobSpec.of("flaky, 3 attempts", ScheduleSpec.fixedDelay(4_000),
                Target.handler("demo-flaky")).withRetry(new RetryPolicy(3, 500)));
        var api = server.jobs().create(JobSpec.of("on demand (API)", ScheduleSpec.api(), Target.handler("demo-log")));
        server.jobs().run(api.id(), 2_000, "{\"hello\":\"world\"}");
        var cancelled = server.jobs().run(api.id(), 3_000, null);
        log.info("demo: cancelling instance {}: {}", cancelled.id(), server.instances().cancel(cancelled.id()));
    }

    private static String value(Deque<String> rest, String flag) {
        if (rest.isEmpty()) {
            System.err.println(flag + " needs a value\n" + usage());
            System.exit(2);
        }
        return rest.removeFirst();
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    static String usage() {
        return """
                usage: java -jar tickwheel-server.jar [--demo] [--db-url URL] [--node-id N]
                  --demo          register example jobs (cron every 5 s, fixed rate, flaky with retries, API)
                  --db-url URL    store: jdbc:h2:file:... or jdbc:postgresql://...   env TICKWHEEL_DB_URL
                                  default %s
                  --node-id N     0..1023, distinct per server sharing a store        env TICKWHEEL_NODE_ID
                """.formatted(JdbcStoreConfig.DEFAULT_JDBC_URL) + "  (loader period "
                + TickwheelServer.DEFAULT_LOADER_PERIOD + ", load window " + TickwheelServer.DEFAULT_LOAD_WINDOW
                + ", misfire threshold " + TickwheelServer.DEFAULT_MISFIRE_THRESHOLD + ")";
    }

}
