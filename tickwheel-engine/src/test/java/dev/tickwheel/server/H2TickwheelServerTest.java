package dev.tickwheel.server;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.store.StoreInUseException;
import dev.tickwheel.time.ScheduleSpec;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The engine on an embedded H2 file store, as the server runs by default. */
class H2TickwheelServerTest extends AbstractTickwheelServerTest {

    @TempDir
    Path dataDir;

    @Override
    String jdbcUrl() {
        return "jdbc:h2:file:" + dataDir.resolve("tw").toAbsolutePath();
    }

    @Test
    void secondServer_sameStore_refusesToStart_andTheFirstKeepsRunning() {
        TickwheelServer second = TickwheelServer.builder().jdbcUrl(url).build();

        StoreInUseException e = assertThrows(StoreInUseException.class, second::start);

        assertTrue(e.getMessage().startsWith("another Tickwheel server is running on this store"), e.getMessage());
        Job job = server.jobs().create(JobSpec.of("still works", ScheduleSpec.api(), Target.handler("count")));
        awaitStatus(server.jobs().run(job.id(), 0, null).id(), InstanceStatus.SUCCEEDED);
    }
}
