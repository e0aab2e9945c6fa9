package dev.tickwheel.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.client.model.InstanceStatus;
import dev.tickwheel.client.model.Job;
import dev.tickwheel.client.model.JobRequest;
import dev.tickwheel.client.model.RerunAllResult;
import dev.tickwheel.client.model.RerunFilter;
import dev.tickwheel.client.model.RunRequest;
import dev.tickwheel.client.model.RunResult;
import dev.tickwheel.client.model.Schedule;
import dev.tickwheel.client.model.Target;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reruns through the client against a real server in its own JVM (H2): one, the same again, a filtered set. */
class RerunClientTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    static Path data;

    private static H2Server server;
    private static TickwheelClient client;

    @BeforeAll
    static void start() throws Exception {
        server = H2Server.start(data, null);
        client = TickwheelClient.builder(server.baseUrl()).build();
    }

    @AfterAll
    static void stop() throws Exception {
        client.close();
        server.close();
    }

    @Test
    void rerun_oneAndAFilteredSet_eachOnce() {
        // Nothing listens on port 9: every call fails at once.
        Job job = client.jobs().create(JobRequest.builder("unreachable", Schedule.api(),
                Target.webhook("http://127.0.0.1:9/none")).retry(1, Duration.ZERO).build());
        List<Long> failed = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            failed.add(client.jobs().run(job.id(), RunRequest.now()).instanceId());
        }
        for (long id : failed) {
            Await.until(() -> client.instances().get(id).status(), status -> status == InstanceStatus.FAILED, WAIT,
                    "instance " + id + " FAILED");
        }

        RunResult rerun = client.instances().rerun(failed.get(0));
        assertTrue(rerun.created());
        assertEquals(failed.get(0), client.instances().get(rerun.instanceId()).rerunOf());
        RunResult again = client.instances().rerun(failed.get(0));
        assertFalse(again.created(), "the same call again answers the first rerun");
        assertEquals(rerun.instanceId(), again.instanceId());

        // The rerun calls the same unreachable target: it fails too, and is a failed instance of the job like the others.
        Await.until(() -> client.instances().get(rerun.instanceId()).status(),
                status -> status == InstanceStatus.FAILED, WAIT, "the rerun FAILED");
        assertEquals(new RerunAllResult(4, 0, false),
                client.instances().rerunAll(RerunFilter.failedOf(job.id()).asDryRun()));
        RerunAllResult all = client.instances().rerunAll(RerunFilter.failedOf(job.id()));
        assertEquals(new RerunAllResult(4, 3, false), all, "the first original was rerun already");
        long waiting = client.jobs().run(job.id(), RunRequest.after(Duration.ofMinutes(10))).instanceId();
        assertThrows(ConflictException.class, () -> client.instances().rerun(waiting));
        assertThrows(NotFoundException.class, () -> client.instances().rerun(987_654_321L));
    }
}
