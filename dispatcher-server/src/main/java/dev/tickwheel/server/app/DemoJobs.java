package dev.tickwheel.server.app;

import dev.tickwheel.server.JobSpec;
import dev.tickwheel.server.TickwheelServer;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.store.JobNameCursor;
import dev.tickwheel.server.store.Page;
import dev.tickwheel.time.ScheduleSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The jobs of {@code --demo}: their in-process handlers, their registration, and their removal when the server starts
 * without {@code --demo} (their targets, the {@code demo-*} handlers and {@code POST /demo/echo}, exist only with it).
 *
 * <p>A demo job is marked by its name, which starts with {@link #NAME_PREFIX}: the job model has no other field for
 * it, and the name survives in the store. The prefix is reserved: a job of one's own named {@code "demo: ..."} is
 * removed too on a start without {@code --demo}.
 *
 * <p>Caveats: in a cluster, a member started without {@code --demo} removes the demo jobs of a member started with it.
 *
 * <p>Thread-safe (stateless).
 */
final class DemoJobs {

    /** The reserved name prefix of demo jobs. */
    static final String NAME_PREFIX = "demo: ";

    private static final Logger log = LoggerFactory.getLogger(DemoJobs.class);
    private static final int PAGE_SIZE = 500;

    private DemoJobs() {
    }

    /** Registers the demo handlers ({@code demo-log}, {@code demo-flaky}) on the engine builder. */
    static void addHandlers(TickwheelServer.Builder builder) {
        builder.handler("demo-log", ctx -> log.info("demo: ran instance {} of '{}' (attempt {}, due {})",
                ctx.instanceId(), ctx.jobName(), ctx.attempt(), ctx.expectedTriggerTime()));
        builder.handler("demo-flaky", ctx -> {
            if (ThreadLocalRandom.current().nextInt(3) == 0) {
                throw new IllegalStateException("demo: simulated failure");
            }
            log.info("demo: flaky job succeeded on attempt {}", ctx.attempt());
        });
    }

    /**
     * Creates the four demo jobs and two on-demand runs, unless demo jobs from an earlier start are in the store.
     *
     * @param baseUrl the API's base URL, whose {@code /demo/echo} the webhook jobs call
     */
    static void register(TickwheelServer engine, String baseUrl) {
        if (!find(engine).isEmpty()) {
            log.info("demo: demo jobs already exist in the store; not adding more");
            return;
        }
        Target echo = Target.webhook(baseUrl + "/demo/echo");
        engine.jobs().create(JobSpec.of(NAME_PREFIX + "every 5 s (cron, webhook)",
                ScheduleSpec.cron("*/5 * * * * ?", "UTC"), echo));
        engine.jobs().create(JobSpec.of(NAME_PREFIX + "every 7 s (fixed rate, handler)",
                ScheduleSpec.fixedRate(7_000, null), Target.handler("demo-log")));
        engine.jobs().create(JobSpec.of(NAME_PREFIX + "flaky, 3 attempts (fixed delay)",
                ScheduleSpec.fixedDelay(4_000), Target.handler("demo-flaky")).withRetry(new RetryPolicy(3, 500)));
        var onDemand = engine.jobs().create(JobSpec.of(NAME_PREFIX + "on demand (API, webhook)", ScheduleSpec.api(),
                echo).withParams("{\"hello\":\"world\"}"));
        engine.jobs().run(onDemand.id(), 2_000, "{\"hello\":\"world\"}");
        engine.jobs().run(onDemand.id(), 90_000, null); // within the arm horizon, beyond a minute: the coarse wheel
        log.info("demo: 4 jobs registered; dashboard at {}/", baseUrl);
    }

    /**
     * Deletes every demo job (their waiting instances are cancelled) and, if there were any, logs how many at
     * INFO.
     *
     * @return how many were deleted
     */
    static int removeAll(TickwheelServer engine) {
        int removed = 0;
        for (Job job : find(engine)) {
            if (engine.jobs().delete(job.id())) {
                removed++;
            }
        }
        if (removed > 0) {
            log.info("demo: {} demo job(s) removed, since this start has no --demo", removed);
        }
        return removed;
    }

    /**
     * The demo jobs in the store, found by their name prefix: the jobs whose name contains it (ignoring case), in
     * pages, kept if it starts their name (exactly).
     */
    static List<Job> find(TickwheelServer engine) {
        List<Job> found = new ArrayList<>();
        JobNameCursor after = null;
        while (true) {
            Page<Job, JobNameCursor> page = engine.jobs().search(NAME_PREFIX, after, PAGE_SIZE);
            for (Job job : page.items()) {
                if (job.name().startsWith(NAME_PREFIX)) {
                    found.add(job);
                }
            }
            if (!page.hasMore()) {
                return found;
            }
            after = page.nextCursor().get();
        }
    }
}
