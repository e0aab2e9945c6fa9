package dev.tickwheel.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.instance.CancelOutcome;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceHistory;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.instance.RescheduleOutcome;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.time.ScheduleSpec;
import dev.tickwheel.time.SettableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Only what is due within the arm horizon is on the wheels; the rest waits in the store and is armed by the pass that
 * finds it within the horizon. Time is a settable clock: the passes are run by hand ({@link TickwheelServer#passNow}),
 * and no instance here comes due on the wheel's own (real) ticker while the test runs: the nearest is 50 s away.
 */
class ArmHorizonTest {

    private static final Duration HORIZON = Duration.ofMinutes(1);

    @TempDir
    Path dir;

    private final SettableClock clock = new SettableClock(Instant.now());
    private final AtomicInteger calls = new AtomicInteger();
    private TickwheelServer server;

    private TickwheelServer start() {
        server = TickwheelServer.builder()
                .jdbcUrl("jdbc:h2:file:" + dir.resolve("tw").toAbsolutePath())
                .clock(clock)
                .armHorizon(HORIZON)
                .handler("count", ctx -> calls.incrementAndGet())
                .build()
                .start();
        return server;
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private Instance runAt(Job job, Instant at) {
        return server.jobs().run(job.id(), new RunSpec(null, null, at, null)).instance();
    }

    private InstanceStatus status(long id) {
        return server.instances().history(id).map(InstanceHistory::instance).map(Instance::status).orElseThrow();
    }

    @Test
    void runsBeyondTheHorizon_waitInTheStore_thePassThatFindsThemWithinIt_armsThem() throws Exception {
        start();
        Job job = server.jobs().create(JobSpec.of("horizon", ScheduleSpec.api(), Target.handler("count")));
        Instant t0 = clock.instant();
        Instance near = runAt(job, t0.plusSeconds(50));
        Instance far = runAt(job, t0.plus(Duration.ofMinutes(10)));
        Instance cancelledFar = runAt(job, t0.plus(Duration.ofMinutes(10)));
        assertEquals(1, server.pendingTimers(), "only the run within the horizon is armed");

        // Cancel and reschedule work on instances nobody armed: the store decides.
        assertEquals(CancelOutcome.CANCELLED, server.instances().cancel(cancelledFar.id()).outcome());
        Instance movedIn = runAt(job, t0.plus(Duration.ofMinutes(30)));
        assertEquals(1, server.pendingTimers());
        assertEquals(RescheduleOutcome.Kind.RESCHEDULED, server.instances()
                .reschedule(movedIn.id(), null, t0.plusSeconds(55), null).outcome());
        assertEquals(2, server.pendingTimers(), "moved within the horizon: armed at once");
        assertEquals(RescheduleOutcome.Kind.RESCHEDULED, server.instances()
                .reschedule(near.id(), null, t0.plus(Duration.ofMinutes(20)), null).outcome());
        assertEquals(1, server.pendingTimers(), "moved beyond the horizon: disarmed, back in the store");

        server.passNow(); // nothing new within the horizon yet
        assertEquals(1, server.pendingTimers());

        clock.advance(Duration.ofMinutes(9).plusSeconds(30));
        server.passNow(); // the horizon now reaches t0 + 10.5 min: 'far' comes within it, the cancelled one not
        assertEquals(2, server.pendingTimers(), "far armed by the pass");
        assertTrue(server.wheel().fetchTimerFuture(far.id()).isPresent(), "far is on the wheel");
        assertFalse(server.wheel().fetchTimerFuture(cancelledFar.id()).isPresent(), "a cancelled row is not armed");

        clock.advance(Duration.ofMinutes(10));
        server.passNow(); // t0 + 20.5 min: 'near', moved to t0 + 20 min, is armed again
        assertTrue(server.wheel().fetchTimerFuture(near.id()).isPresent(), "the moved instance is armed");
        assertEquals(InstanceStatus.WAITING, status(far.id()));
        assertEquals(InstanceStatus.CANCELLED, status(cancelledFar.id()));
    }

    @Test
    void restart_armsOnlyWhatIsDueWithinTheHorizon_whateverTheBacklog() throws Exception {
        start();
        Job job = server.jobs().create(JobSpec.of("backlog", ScheduleSpec.api(), Target.handler("count")));
        Instant t0 = clock.instant();
        List<RunSpec> later = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            later.add(new RunSpec(null, null, t0.plus(Duration.ofHours(1)).plusMillis(i), null));
        }
        server.jobs().runAll(job.id(), later.subList(0, 1_000));
        server.jobs().runAll(job.id(), later.subList(1_000, 2_000));
        List<Long> soon = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            soon.add(runAt(job, t0.plusSeconds(50).plusMillis(i)).id());
        }
        assertEquals(7, server.pendingTimers());
        server.close();

        start();
        assertEquals(7, server.pendingTimers(), "recovery armed only the 7 due within the horizon, not the 2 000");
        for (long id : soon) {
            assertTrue(server.wheel().fetchTimerFuture(id).isPresent(), "armed after the restart: " + id);
        }
        clock.advance(Duration.ofMinutes(59).plusSeconds(30));
        server.passNow();
        assertEquals(7 + 2_000, server.pendingTimers(), "the hour's backlog armed once it came within the horizon");
    }

    @Test
    void horizonShorterThanTwoLoaderPeriods_isRefusedNamingBoth() {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> TickwheelServer.builder()
                .loaderPeriod(Duration.ofSeconds(15)).armHorizon(Duration.ofSeconds(29)).build());
        assertTrue(refused.getMessage().contains("armHorizon") && refused.getMessage().contains("loaderPeriod"),
                refused.getMessage());
        assertTrue(Files.exists(dir), "nothing was opened");
    }
}
