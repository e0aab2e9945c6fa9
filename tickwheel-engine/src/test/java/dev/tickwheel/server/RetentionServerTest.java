package dev.tickwheel.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.instance.InstanceHistory;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.schedule.RetentionPurge;
import dev.tickwheel.time.ScheduleSpec;
import dev.tickwheel.time.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The retention purge wired into the engine: it runs every retention interval from {@link TickwheelServer#start()} on,
 * on its own, and deletes a finished instance once the wall clock has passed its retention; it stops with the server.
 */
class RetentionServerTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dataDir;

    @Test
    void start_purgeRunsEveryInterval_deletesAFinishedInstanceOnceItsRetentionHasPassed() {
        SettableClock clock = new SettableClock(Instant.now());
        TickwheelServer server = TickwheelServer.builder()
                .jdbcUrl("jdbc:h2:file:" + dataDir.resolve("tw").toAbsolutePath())
                .clock(clock)
                .handler("noop", ctx -> { })
                .retention(new RetentionPurge.Settings(2, 500, Duration.ofMillis(20), 100))
                .build()
                .start();
        try {
            Job job = server.jobs().create(JobSpec.of("kept two days", ScheduleSpec.api(), Target.handler("noop")));
            long id = server.jobs().run(job.id(), 0, null).id();
            Await.until("instance succeeded", WAIT, () -> server.instances().history(id)
                    .map(InstanceHistory::instance).map(Instance::status)
                    .orElse(null) == InstanceStatus.SUCCEEDED);
            long runsBefore = server.retentionStats().runs();
            Await.until("two more purge runs", WAIT, () -> server.retentionStats().runs() >= runsBefore + 2);
            assertTrue(server.instances().history(id)
                    .map(InstanceHistory::instance).isPresent(), "younger than two days: kept");

            clock.advance(Duration.ofDays(2).plusSeconds(1));
            // The count follows the delete's commit: wait for it, then the row must be gone.
            Await.until("instance purged", WAIT, () -> server.retentionStats().purged() == 1);

            assertTrue(server.instances().history(id).map(InstanceHistory::instance).isEmpty());
            assertEquals(0, server.retentionStats().failedRuns());
            assertEquals(0, server.purgeNow(), "nothing left to delete");
        } finally {
            server.close();
        }
        assertEquals(1, server.retentionStats().purged(), "the counters stay readable after close (a last scrape)");
    }
}
