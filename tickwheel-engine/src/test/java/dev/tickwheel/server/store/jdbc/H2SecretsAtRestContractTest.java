package dev.tickwheel.server.store.jdbc;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Secrets at rest on H2 2.x: a database file per test, so that a test can close and reopen it (a restart); and the
 * start's walk over the key ids in use, which must probe the index rather than read the secrets under a key id.
 */
class H2SecretsAtRestContractTest extends AbstractSecretsAtRestContractTest {

    private static final Pattern SCAN_COUNT = Pattern.compile("scanCount: (\\d+)");

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

    @Test
    void keyIdWalk_eachStepOneIndexProbe_notAReadOfTheSecretsUnderAKeyId() throws Exception {
        JdbcStores stores = open(KEY_A);
        insertSigned(stores, 2_000);
        try (Connection c = stores.dataSource().getConnection()) {
            for (String after : new String[] {"", ID_A}) {
                String plan = PlanTestRows.explain(c, "EXPLAIN ANALYZE " + JobSql.SELECT_SECRET_KEY_ID_FROM,
                        ps -> ps.setString(1, JobSql.keyIdsFrom(after)));
                assertTrue(plan.contains("TW_JOB_SECRET_KEY_IDX"), plan);
                Matcher scans = SCAN_COUNT.matcher(plan);
                assertTrue(scans.find() && Long.parseLong(scans.group(1)) <= 1, "after '" + after + "': " + plan);
            }
        }
    }
}
