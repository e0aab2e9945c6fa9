package dev.tickwheel.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceHistory;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.instance.RunWrite;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.time.ScheduleSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reruns through the whole engine on its embedded H2 store: one finished instance run again (linked, with its params,
 * safe to repeat), and a filtered set of 10 050 failed instances rerun in calls capped at 10 000.
 */
class RerunServerTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dataDir;

    private final AtomicBoolean failing = new AtomicBoolean(true);
    private final AtomicInteger calls = new AtomicInteger();
    private TickwheelServer server;

    @BeforeEach
    void start() {
        server = TickwheelServer.builder()
                .jdbcUrl("jdbc:h2:file:" + dataDir.resolve("tw").toAbsolutePath())
                .handler("flaky", ctx -> {
                    calls.incrementAndGet();
                    if (failing.get()) {
                        throw new IllegalStateException("downstream unavailable");
                    }
                })
                .build()
                .start();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void rerun_failedInstance_runsAgainLinkedWithItsParams_repeatingAnswersTheSameRerun() {
        Job job = server.jobs().create(JobSpec.of("flaky", ScheduleSpec.api(), Target.handler("flaky"))
                .withRetry(new RetryPolicy(1, 0)));
        long original = server.jobs().run(job.id(), new RunSpec(null, 0L, null, "{\"order\": 7}", 8)).instance().id();
        await(original, InstanceStatus.FAILED);
        failing.set(false);

        RunWrite rerun = server.instances().rerun(original, null);
        assertTrue(rerun.created());
        assertEquals(original, rerun.instance().rerunOf());
        assertEquals("rerun-of-" + original, rerun.instance().key());
        Instance done = await(rerun.instance().id(), InstanceStatus.SUCCEEDED);
        assertEquals("{\"order\": 7}", done.params(), "the original's params");
        assertEquals(8, done.priority(), "and its own priority");
        assertEquals(original, done.rerunOf());
        assertEquals(InstanceStatus.FAILED, instance(original).status(), "the original keeps its outcome");

        RunWrite again = server.instances().rerun(original, null);
        assertFalse(again.created(), "a repeated call answers the first rerun");
        assertEquals(rerun.instance().id(), again.instance().id());
        RunWrite another = server.instances().rerun(original, "second-try");
        assertTrue(another.created(), "a key of the caller's makes another");
        await(another.instance().id(), InstanceStatus.SUCCEEDED);
    }

    @Test
    void rerun_unfinishedOrUnknownInstance_isRefused_andNothingIsWritten() {
        Job job = server.jobs().create(JobSpec.of("later", ScheduleSpec.api(), Target.handler("flaky")));
        long waiting = server.jobs().run(job.id(), 3_600_000, null).id();

        IllegalStateException notFinished = assertThrows(IllegalStateException.class,
                () -> server.instances().rerun(waiting, null));
        assertTrue(notFinished.getMessage().contains("WAITING"), notFinished.getMessage());
        assertThrows(NoSuchElementException.class, () -> server.instances().rerun(12_345L, null));
        assertEquals(1, server.instances().list(job.id(), null, null, null, null, 100).items().size());
        assertThrows(IllegalArgumentException.class,
                () -> server.instances().rerunAll(job.id(), InstanceStatus.WAITING, null, null, false));
    }

    /**
     * 10 050 runs fail; a dry run counts them; the first call reruns 10 000 (its cap) and says there is more; the
     * second reruns the other 50; a third finds every match already rerun. Every rerun runs once.
     */
    @Test
    void rerunAll_10050FailedInstances_dryRunCounts_thenTwoCallsRerunEachOnce() {
        Job job = server.jobs().create(JobSpec.of("bulk", ScheduleSpec.api(), Target.handler("flaky"))
                .withRetry(new RetryPolicy(1, 0)));
        int failed = InstanceService.MAX_RERUNS_PER_CALL + 50;
        for (int batch = 0; batch < failed; batch += JobService.MAX_RUNS_PER_CALL) {
            List<RunSpec> runs = new ArrayList<>();
            for (int i = batch; i < Math.min(failed, batch + JobService.MAX_RUNS_PER_CALL); i++) {
                runs.add(new RunSpec(null, 0L, null, null));
            }
            server.jobs().runAll(job.id(), runs);
        }
        Await.until(() -> failed + " instances failed, " + count(job, InstanceStatus.FAILED) + " are", WAIT,
                () -> count(job, InstanceStatus.FAILED) == failed);
        failing.set(false);
        calls.set(0);

        assertEquals(new InstanceService.RerunAll(failed, 0, false),
                server.instances().rerunAll(job.id(), InstanceStatus.FAILED, null, null, true), "a dry run");
        assertEquals(failed, count(job, InstanceStatus.FAILED), "a dry run writes nothing");
        assertEquals(new InstanceService.RerunAll(InstanceService.MAX_RERUNS_PER_CALL,
                InstanceService.MAX_RERUNS_PER_CALL, true),
                server.instances().rerunAll(job.id(), InstanceStatus.FAILED, null, null, false));
        assertEquals(new InstanceService.RerunAll(failed, 50, false),
                server.instances().rerunAll(job.id(), InstanceStatus.FAILED, null, null, false),
                "the second call passes the instances the first reran and reruns the rest");
        Await.until(() -> failed + " reruns succeeded, " + count(job, InstanceStatus.SUCCEEDED) + " did; "
                        + unfinished(job), WAIT,
                () -> count(job, InstanceStatus.SUCCEEDED) == failed);
        assertEquals(new InstanceService.RerunAll(failed, 0, false),
                server.instances().rerunAll(job.id(), InstanceStatus.FAILED, null, null, false),
                "every failed instance was rerun already");
        assertEquals(failed, calls.get(), "each rerun called once");
    }

    private long count(Job job, InstanceStatus status) {
        long count = 0;
        Long before = null;
        while (true) {
            var page = server.instances().list(job.id(), status, null, null, before, 10_000);
            count += page.items().size();
            if (page.nextCursor().isEmpty()) {
                return count;
            }
            before = page.nextCursor().get();
        }
    }

    /** Where the reruns that did not succeed are, for a failure message: their rows and the engine's view of them. */
    private String unfinished(Job job) {
        StringBuilder where = new StringBuilder();
        for (InstanceStatus status : new InstanceStatus[] {InstanceStatus.WAITING, InstanceStatus.DISPATCHING}) {
            for (Instance instance : server.instances().list(job.id(), status, null, null, null, 5).items()) {
                where.append(instance.id()).append(' ').append(status).append(" attempt ").append(instance.attempt())
                        .append(" rerunOf ").append(instance.rerunOf()).append(" on the wheel ")
                        .append(server.wheel().isPending(instance.id())).append("; ");
            }
        }
        return where.append("wheel pending ").append(server.wheel().pendingCount()).append(", held ")
                .append(server.wheel().heldCount()).append(", precise ").append(server.wheel().preciseWheelStats())
                .append(", waiting for a call slot ").append(server.waitingForCallSlot()).append(", calls in flight ")
                .append(server.callsInFlight()).toString();
    }

    private Instance await(long id, InstanceStatus status) {
        Await.until(() -> "instance " + id + " " + status + ", is " + instance(id).status(), WAIT,
                () -> instance(id).status() == status);
        return instance(id);
    }

    private Instance instance(long id) {
        return server.instances().history(id).map(InstanceHistory::instance).orElseThrow();
    }
}
