package dev.tickwheel.server.store.jdbc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Caller's keys, set cancels and reschedules on H2 2.x, in a file database of a temporary directory (not in memory:
 * {@link AbstractRunStoreContractTest#insertRuns_storeReopened_keyStillNamesItsInstance} closes the store, and an
 * in-memory database would disappear with its last connection).
 */
class H2RunStoreContractTest extends AbstractRunStoreContractTest {

    private Path directory;

    @Override
    protected String createDatabase() throws IOException {
        directory = Files.createTempDirectory("tw_runs_");
        return "jdbc:h2:file:" + directory.resolve("tickwheel") + ";AUTO_SERVER=FALSE";
    }

    @Override
    protected void dropDatabase() throws IOException {
        if (directory == null) {
            return;
        }
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path path : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
