package dev.tickwheel.server.store.jdbc;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** Secrets at rest on H2 2.x: a database file per test, so that a test can close and reopen it (a restart). */
class H2SecretsAtRestContractTest extends AbstractSecretsAtRestContractTest {

    @TempDir
    Path dataDir;

    @Override
    protected String createDatabase() {
        return "jdbc:h2:file:" + dataDir.resolve("tickwheel").toAbsolutePath();
    }

    @Override
    protected void dropDatabase() {
        // The temporary directory goes with the test.
    }
}
