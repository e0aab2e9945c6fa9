package dev.tickwheel.server;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The engine on an embedded H2 file store, as the server runs by default. */
class H2TickwheelServerTest extends AbstractTickwheelServerTest {

    @TempDir
    Path dataDir;

    @Override
    String jdbcUrl() {
        return "jdbc:h2:file:" + dataDir.resolve("tw").toAbsolutePath();
    }
}
