package dev.tickwheel.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.time.ScheduleSpec;
import dev.tickwheel.time.SettableClock;
import dev.tickwheel.timer.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job changed after a loader created its instance and before the instance fires: the fire delivers the job as it is
 * after the change. The loader arms what it creates with the job it read ({@code JobCatalog.Stamped}), so that the
 * fire needs no job read; these tests fail if that copy is served after the change. Both ways a loader creates
 * instances: a pass of a running server, and the recovery pass of a server starting on a store with due jobs.
 *
 * <p>Time is a settable clock and a manual ticker moved together: nothing fires until the test moves them.
 */
class JobChangeBeforeFireTest {

    private static final Instant T0 = Instant.parse("2031-04-05T06:00:00Z");

    @TempDir
    Path dir;

    private final SettableClock clock = new SettableClock(T0);
    /** "handler params" of every delivery. */
    private final List<String> delivered = new CopyOnWriteArrayList<>();
    private TickwheelServer server;

    private TickwheelServer start(ManualClock ticker) {
        server = TickwheelServer.builder()
                .jdbcUrl("jdbc:h2:file:" + dir.resolve("tw").toAbsolutePath())
                .clock(clock)
                .ticker(ticker)
                .handler("before", ctx -> delivered.add("before " + ctx.params()))
                .handler("after", ctx -> delivered.add("after " + ctx.params()))
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

    @Test
    void jobChanged_afterALoaderPassArmedItsInstance_theFireDeliversTheChangedJob() throws Exception {
        ManualClock ticker = new ManualClock();
        start(ticker);
        Instant due = T0.plusSeconds(20); // within the loader's window: created and armed when the job is created
        Job job = server.jobs().create(spec(due, "before", 1));
        assertEquals(1, server.pendingTimers(), "the instance is armed, with the job as created");

        changeThenFire(job, due, ticker);
    }

    @Test
    void jobChanged_afterTheStartUpRecoveryArmedItsInstance_theFireDeliversTheChangedJob() throws Exception {
        ManualClock first = new ManualClock();
        start(first);
        Instant due = T0.plusSeconds(60); // beyond the loader's window: no instance yet
        Job job = server.jobs().create(spec(due, "before", 1));
        assertEquals(0, server.pendingTimers());
        server.close();
        clock.advance(Duration.ofSeconds(40)); // now within the window: the next start's recovery creates it

        ManualClock second = new ManualClock();
        start(second);
        assertEquals(1, server.pendingTimers(), "the recovery armed the instance, with the job it advanced");

        changeThenFire(job, due, second);
    }

    @Test
    void jobUnchanged_theFireDeliversTheJobItWasArmedWith() throws Exception {
        ManualClock ticker = new ManualClock();
        start(ticker);
        Job job = server.jobs().create(spec(T0.plusSeconds(20), "before", 1));

        move(ticker, Duration.ofSeconds(21));

        awaitDelivered(job);
        assertEquals(List.of("before {\"v\": 1}"), delivered);
    }

    /** Changes the job's handler and params, then lets its instance fire: it must deliver the change. */
    private void changeThenFire(Job job, Instant due, ManualClock ticker) {
        server.jobs().update(job.id(), spec(due, "after", 2)).orElseThrow();
        move(ticker, Duration.between(clock.instant(), due).plusSeconds(1));

        awaitDelivered(job);
        assertEquals(List.of("after {\"v\": 2}"), delivered);
    }

    private static JobSpec spec(Instant due, String handler, int version) {
        return JobSpec.of("changed before its fire", ScheduleSpec.oneShot(due), Target.handler(handler))
                .withParams("{\"v\": " + version + "}");
    }

    private void awaitDelivered(Job job) {
        Await.until("the instance of job " + job.id() + " delivered", Duration.ofSeconds(20), () -> !server.instances()
                .list(job.id(), InstanceStatus.SUCCEEDED, null, null, null, 10).items().isEmpty());
    }

    /** Wall clock first: when the wheel fires, the engine's clock already reads the new time. */
    private void move(ManualClock ticker, Duration step) {
        clock.advance(step);
        ticker.advance(step);
    }
}
