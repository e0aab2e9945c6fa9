package dev.tickwheel.server.store.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.store.Shards;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The rows {@link LargeHistory} loads are the ones its formulas describe, on both databases (the SQL and the Java
 * must not drift apart: tests compute what they expect from the formulas).
 */
class LargeHistoryTest {

    private static final LargeHistory HISTORY = LargeHistory.of(37, 5_000);

    @Test
    void load_h2_rowsMatchTheFormulas() throws Exception {
        check("jdbc:h2:mem:tw_" + UUID.randomUUID().toString().replace("-", ""));
    }

    @Test
    void load_postgres_rowsMatchTheFormulas() throws Exception {
        PostgresTestDatabase database = PostgresTestDatabase.createSchema();
        try {
            check(database.jdbcUrl());
        } finally {
            database.dropSchema();
        }
    }

    private static void check(String url) throws SQLException {
        try (JdbcStores stores = JdbcStores.open(url)) {
            try (Connection c = stores.dataSource().getConnection()) {
                HISTORY.load(c);
            }
            assertEquals(HISTORY.instances(), count(stores, "SELECT COUNT(DISTINCT id) FROM tw_instance"));
            assertEquals(HISTORY.jobs(), count(stores, "SELECT COUNT(*) FROM tw_job"));
            for (long x : new long[] {1, 2, 3, 100, 101, 102, 103, 2_500, 3_999, 4_000, 4_001, 5_000}) {
                Instance instance = stores.instances().get(HISTORY.instanceId(x)).orElseThrow(() ->
                        new AssertionError("no instance " + x));
                Job job = stores.jobs().get(instance.jobId()).orElseThrow();
                assertEquals(HISTORY.jobId(HISTORY.jobOf(x)), job.id(), "job of " + x);
                assertEquals(LargeHistory.jobName(HISTORY.jobOf(x)), job.name(), "job name of " + x);
                assertEquals(HISTORY.instanceCreatedAt(x), instance.createdAt(), "created at of " + x);
                assertEquals(HISTORY.statusOf(x), instance.status(), "status of " + x);
                assertEquals(Shards.of(job.id(), Shards.DEFAULT_COUNT), instance.shard(), "shard of " + x);
            }
            // 5000 instances, the last 1000 waiting: x % 100 == 0 fail (40 of x <= 4000), each with 2 attempt rows;
            // 3..7 succeed on the second attempt (200), each with one.
            assertEquals(40, count(stores, "SELECT COUNT(*) FROM tw_instance WHERE status = 'FAILED'"));
            assertEquals(40 * 2 + 200, count(stores, "SELECT COUNT(*) FROM tw_attempt"));
            assertEquals(1_000, count(stores, "SELECT COUNT(*) FROM tw_instance WHERE status = '"
                    + InstanceStatus.WAITING + "'"));
        }
    }

    private static long count(JdbcStores stores, String sql) throws SQLException {
        try (Connection c = stores.dataSource().getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
