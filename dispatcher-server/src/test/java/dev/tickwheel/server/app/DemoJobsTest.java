package dev.tickwheel.server.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.JobSpec;
import dev.tickwheel.server.TickwheelServer;
import dev.tickwheel.server.api.ApiSettings;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.time.ScheduleSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DemoJobsTest {

    @TempDir
    Path dir;

    @Test
    void start_withoutDemoAfterADemoStart_removesTheDemoJobsAndKeepsTheUsersOwn() {
        long ownId;
        try (TickwheelApplication app = start(true)) {
            List<Job> demo = DemoJobs.find(app.engine());
            assertEquals(4, demo.size(), demo.toString());
            ownId = app.engine().jobs().create(JobSpec.of("my report", ScheduleSpec.api(),
                    Target.webhook("http://127.0.0.1:9/hook"))).id();
        }
        try (TickwheelApplication app = start(false)) {
            List<Job> all = app.engine().jobs().search(null, null, 100).items();
            assertEquals(1, all.size(), all.toString());
            assertEquals(ownId, all.get(0).id());
            assertEquals("my report", all.get(0).name());
        }
    }

    @Test
    void start_withDemoTwice_registersTheDemoJobsOnce() {
        try (TickwheelApplication app = start(true)) {
            assertEquals(4, DemoJobs.find(app.engine()).size());
        }
        try (TickwheelApplication app = start(true)) {
            assertEquals(4, DemoJobs.find(app.engine()).size());
            assertTrue(DemoJobs.find(app.engine()).stream().allMatch(j -> j.name().startsWith(DemoJobs.NAME_PREFIX)));
        }
    }

    @Test
    void statusLine_ofAStartedServer_readsTheEngineWithoutTheStore() {
        try (TickwheelApplication app = start(true)) {
            StatusLine line = StatusLine.of(app.engine());
            // the demo's on-demand job has a run due in 90 s: armed in the coarse wheel for half a minute at least
            assertTrue(line.coarsePending() >= 1, line.format());
            assertTrue(line.wheelPending() >= 1, line.format());
        }
    }

    private TickwheelApplication start(boolean demo) {
        String jdbcUrl = "jdbc:h2:file:" + dir.resolve("tw").toAbsolutePath();
        return TickwheelApplication.start(new ServerSettings(new ApiSettings("127.0.0.1", 0, null, demo), jdbcUrl,
                OptionalInt.empty(), Duration.ofSeconds(5), Duration.ofSeconds(1), Duration.ofSeconds(15),
                Duration.ofSeconds(30), Duration.ofMinutes(2), TickwheelServer.DEFAULT_STORE_TIMEOUT,
                DispatchSettings.DEFAULTS, demo,
                dev.tickwheel.server.schedule.RetentionPurge.Settings.DEFAULTS,
                dev.tickwheel.server.dispatch.alert.AlertSettings.DEFAULTS, null,
                dev.tickwheel.server.store.SecretKeys.NONE));
    }
}
