package dev.tickwheel.server.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.Await;
import dev.tickwheel.server.JobSpec;
import dev.tickwheel.server.TickwheelServer;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.time.MisfirePolicy;
import dev.tickwheel.time.ScheduleSpec;
import dev.tickwheel.time.SettableClock;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Missed triggers a misfire policy drops are counted by policy, and never reach the lateness timer. */
class MisfireMetricsTest {

    private static final Instant T0 = Instant.parse("2031-05-01T10:00:00Z");

    @TempDir
    Path dir;

    private final SettableClock clock = new SettableClock(T0);

    private TickwheelServer server(SimpleMeterRegistry registry) {
        return TickwheelServer.builder()
                .jdbcUrl("jdbc:h2:file:" + dir.resolve("tw").toAbsolutePath())
                .clock(clock)
                .stopTimeout(Duration.ofMillis(200))
                .handler("noop", ctx -> { })
                .dispatchListener(new DispatchMetrics(registry))
                .build().start();
    }

    @Test
    void skip_downtimeOfTenMinutes_countsEveryMissedTriggerAndNoneAsLateness() {
        try (TickwheelServer first = server(new SimpleMeterRegistry())) {
            long jobId = first.jobs().create(JobSpec.of("every 10 s", ScheduleSpec.cron("*/10 * * * * ?", "UTC"),
                    Target.handler("noop")).withMisfirePolicy(MisfirePolicy.SKIP)).id();
            // The T0 trigger is due at once: let it run, or the downtime would miss it too (61 instead of 60).
            Await.until("the T0 instance succeeded", Duration.ofSeconds(10), () -> !first.instances()
                    .list(jobId, InstanceStatus.SUCCEEDED, null, null, null, 10).items().isEmpty());
        }
        // 10:10:07 with a 5 s threshold: 10:00:10 .. 10:10:00 are missed, 60 triggers; some were created before the
        // stop (recovery cancels them), the rest never were (the loader drops them).
        clock.set(T0.plus(Duration.ofMinutes(10)).plusSeconds(7));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (TickwheelServer second = server(registry)) {
            assertEquals(60.0, registry.get("tickwheel.misfires").tag("policy", "SKIP").counter().count());
            assertEquals(0.0, registry.get("tickwheel.misfires").tag("policy", "FIRE_ONCE_NOW").counter().count());
            Timer lateness = registry.get("tickwheel.fire.lateness").timer();
            assertTrue(lateness.max(TimeUnit.SECONDS) < 5, "no missed trigger recorded as lateness: max "
                    + lateness.max(TimeUnit.SECONDS) + " s over " + lateness.count());
        }
    }
}
