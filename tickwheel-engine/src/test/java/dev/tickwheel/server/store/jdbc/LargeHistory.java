package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.store.Shards;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A large, realistic history bulk-loaded straight with SQL into a store whose schema exists (opened once by
 * {@link JdbcStores}, so Flyway made it): {@code jobs} jobs and {@code instances} instances of them, mostly finished,
 * the newest {@code waiting} still WAITING, plus the retried attempts of the instances that needed more than one. For
 * plan tests ({@code PostgresHistoryPlanTest}) and browser tests of the console; 10 000 jobs and 1 000 000 instances
 * load in seconds on either database.
 *
 * <p>What the rows look like, so a test can compute what it expects ({@link #jobId}, {@link #instanceId},
 * {@link #statusOf} and the other functions below are the same formulas the SQL uses):
 * <ul>
 *   <li>Jobs: the j-th job (1-based) was created {@code jobs - j + 1} seconds before {@code from}; its id is the
 *       Snowflake id of that millisecond ({@link SnowflakeIdGenerator#lowestIdAt}, node {@link #NODE}); its name is
 *       {@code <team>-<action>-<j, 5 digits>}, e.g. {@code billing-sync-00042} ({@link #jobName}); every
 *       {@value #UNDERSCORE_EVERY}-th job has {@code _} instead of {@code -} ({@code reports_export_00007}), so a
 *       search for {@code _} must escape it; schedules are FIXED_RATE every minute, enabled, next trigger {@code to}.</li>
 *   <li>Instances: the x-th instance (1-based, ascending id) belongs to job {@code (x - 1) % jobs + 1} and was created
 *       at {@code from + (x - 1) * (to - from) / instances} (milliseconds, rounded down); its id is a Snowflake id of
 *       that millisecond, node {@link #NODE}, sequence {@code (x - 1) % 4096}, so ids grow with x. Every tenth is an
 *       on-demand run (no scheduled slot), the others fill the slot 30 s after their creation.</li>
 *   <li>Statuses ({@link #statusOf}): the newest {@code waiting} are WAITING (never claimed); of the rest, by
 *       {@code x % 100}: 0 FAILED after 3 attempts, 1 CANCELLED (never claimed), 2 INTERRUPTED, 3..7 SUCCEEDED on the
 *       second attempt, the others SUCCEEDED on the first. Claimed ones started {@code x % 50} ms late.</li>
 *   <li>Attempts: one {@code tw_attempt} row per retried attempt (1 and 2 of the FAILED ones, 1 of those that
 *       succeeded on their second).</li>
 * </ul>
 *
 * <p>Not thread-safe: load once, from one thread, into empty tables.
 *
 * @param jobs      how many jobs, at least 1
 * @param instances how many instances, at least 1; at most 4 096 per millisecond of {@code [from, to)} and at most
 *                  {@code jobs} per millisecond (so no two instances of a job share a schedule slot)
 * @param waiting   how many of the newest instances are WAITING, 0..instances
 * @param from      creation time of the first instance
 * @param to        end of the instances' creation times (exclusive)
 */
public record LargeHistory(int jobs, int instances, int waiting, Instant from, Instant to) {

    /** The node id of every generated id. */
    public static final int NODE = 7;
    /** Every this many jobs, a name with underscores. */
    public static final int UNDERSCORE_EVERY = 10;

    private static final long EPOCH_MS = SnowflakeIdGenerator.EPOCH.toEpochMilli();
    private static final long SHIFT_22 = 1L << 22;
    private static final String[] TEAMS = {"billing", "reports", "search", "mail", "etl", "audit", "cache"};
    private static final String[] ACTIONS = {"sync", "export", "cleanup", "refresh", "digest"};
    private static final int BATCH = 1_000;
    /** Instances per committed INSERT ... SELECT on H2 (see load). */
    private static final int H2_CHUNK = 20_000;
    /** A {@code CREATE [UNIQUE ...] INDEX <name> ON <schema>."TW_INSTANCE"(...)} statement of H2's {@code SCRIPT}. */
    private static final Pattern H2_INSTANCE_INDEX = Pattern.compile(
            "CREATE [A-Z ]*INDEX (\\S+) ON \\S*\"TW_INSTANCE\"\\(.*", Pattern.DOTALL);

    public LargeHistory {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        if (jobs < 1 || instances < 1 || waiting < 0 || waiting > instances) {
            throw new IllegalArgumentException("need jobs >= 1, instances >= 1, 0 <= waiting <= instances: " + jobs
                    + ", " + instances + ", " + waiting);
        }
        long spanMs = Duration.between(from, to).toMillis();
        if (spanMs * 4096 < instances || spanMs * jobs < instances) {
            throw new IllegalArgumentException("[from, to) is too short for " + instances + " instances: " + spanMs
                    + " ms");
        }
        if (from.minusSeconds(jobs).isBefore(SnowflakeIdGenerator.EPOCH)) {
            throw new IllegalArgumentException("jobs would be created before the id epoch: " + from);
        }
    }

    /** {@code jobs} jobs and {@code instances} instances over the 30 days before 2026-11-25, 1 000 of them waiting. */
    public static LargeHistory of(int jobs, int instances) {
        Instant to = Instant.parse("2026-11-25T00:00:00Z");
        return new LargeHistory(jobs, instances, Math.min(1_000, instances), to.minus(Duration.ofDays(30)), to);
    }

    // ---------------------------------------------------------------- the formulas

    /** Creation millisecond of the j-th job. */
    public Instant jobCreatedAt(int j) {
        return from.minusSeconds(jobs - j + 1L);
    }

    /** Id of the j-th job (1-based). */
    public long jobId(int j) {
        return SnowflakeIdGenerator.lowestIdAt(jobCreatedAt(j)) + ((long) NODE << 12);
    }

    /** Name of the j-th job. */
    public static String jobName(int j) {
        String separator = j % UNDERSCORE_EVERY == 0 ? "_" : "-";
        return TEAMS[j % TEAMS.length] + separator + ACTIONS[(j / TEAMS.length) % ACTIONS.length] + separator
                + String.format(Locale.ROOT, "%05d", j);
    }

    /** The job (1-based) of the x-th instance. */
    public int jobOf(long x) {
        return (int) ((x - 1) % jobs + 1);
    }

    /** Creation millisecond of the x-th instance (1-based). */
    public Instant instanceCreatedAt(long x) {
        return Instant.ofEpochMilli(from.toEpochMilli() + (x - 1) * spanMs() / instances);
    }

    /** Id of the x-th instance (1-based); ascending in x. */
    public long instanceId(long x) {
        return SnowflakeIdGenerator.lowestIdAt(instanceCreatedAt(x)) + ((long) NODE << 12) + (x - 1) % 4096;
    }

    /** Status of the x-th instance (1-based). */
    public InstanceStatus statusOf(long x) {
        if (x > instances - waiting) {
            return InstanceStatus.WAITING;
        }
        int m = (int) (x % 100);
        return switch (m) {
            case 0 -> InstanceStatus.FAILED;
            case 1 -> InstanceStatus.CANCELLED;
            case 2 -> InstanceStatus.INTERRUPTED;
            default -> InstanceStatus.SUCCEEDED;
        };
    }

    private long spanMs() {
        return to.toEpochMilli() - from.toEpochMilli();
    }

    // ---------------------------------------------------------------- loading

    /**
     * Inserts the jobs (batched, since each row's shard is a hash only Java computes), then the instances and attempts
     * with one {@code INSERT ... SELECT} each over a generated range ({@code SYSTEM_RANGE} on H2, {@code
     * generate_series} on PostgreSQL), the instances joined to their job for its shard. Where the history is
     * partitioned (PostgreSQL, schema 9) it first makes the days' partitions, and records the scheduled instances'
     * slots in {@code tw_instance_slot}. On H2 the instances' secondary indexes are dropped for the load and made
     * again afterwards from their own DDL ({@link #dropInstanceIndexesH2}). Commits.
     */
    public void load(Connection connection) throws SQLException {
        boolean postgres = connection.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT)
                .contains("postgres");
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try {
            boolean partitioned = TestPartitions.partitioned(connection);
            if (partitioned) {
                // Instances over [from, to); slots up to 30 s after their instance.
                TestPartitions.createDays(connection, from, to.plusSeconds(30));
            }
            insertJobs(connection);
            try (Statement s = connection.createStatement()) {
                if (postgres) {
                    s.executeUpdate(instancesSql("generate_series(CAST(1 AS BIGINT), " + instances + ") AS r(x)"));
                } else {
                    List<String> indexes = dropInstanceIndexesH2(s);
                    // H2 keeps every uncommitted row version of a transaction in its maps and writes them out as it
                    // goes: one transaction of a million rows took 213 s, committed chunks take a fraction of it.
                    for (long first = 1; first <= instances; first += H2_CHUNK) {
                        long last = Math.min(instances, first + H2_CHUNK - 1);
                        s.executeUpdate(instancesSql("SYSTEM_RANGE(" + first + ", " + last + ") r"));
                        connection.commit();
                    }
                    for (String create : indexes) {
                        s.execute(create);
                    }
                }
                if (partitioned) {
                    s.executeUpdate("INSERT INTO tw_instance_slot (job_id, scheduled_trigger_time_ms, instance_id)"
                            + " SELECT job_id, scheduled_trigger_time_ms, id FROM tw_instance"
                            + " WHERE scheduled_trigger_time_ms IS NOT NULL");
                }
                // Attempt 1 of every instance with attempt >= 2, attempt 2 of those with 3.
                s.executeUpdate(attemptsSql(1));
                s.executeUpdate(attemptsSql(2));
            }
            connection.commit();
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }

    /**
     * Drops every index of {@code tw_instance} but its primary key, and answers the statements that make them again,
     * exactly as they were (H2's own {@code SCRIPT} of the table). Kept while the rows go in, the three indexes that
     * lead with the job id take an entry in nearly every one of their leaves per chunk (the instances cycle through
     * all jobs), and H2 writes each changed leaf out again at every commit: 1 000 000 instances cost 120 s of CPU that
     * way and 44 s with the indexes made afterwards, each in one sorted pass. The indexes end up with the same names,
     * columns and uniqueness (a duplicate the generator made would fail their creation instead of an insert), and the
     * column statistics H2 plans with are the same.
     */
    private static List<String> dropInstanceIndexesH2(Statement s) throws SQLException {
        List<String> creates = new ArrayList<>();
        List<String> names = new ArrayList<>();
        try (ResultSet rs = s.executeQuery("SCRIPT NODATA TABLE tw_instance")) {
            while (rs.next()) {
                Matcher index = H2_INSTANCE_INDEX.matcher(rs.getString(1));
                if (index.matches()) {
                    creates.add(rs.getString(1));
                    names.add(index.group(1));
                }
            }
        }
        if (creates.isEmpty()) {
            throw new IllegalStateException("no index of tw_instance in H2's SCRIPT output: has its format changed?");
        }
        for (String name : names) {
            s.execute("DROP INDEX " + name);
        }
        return creates;
    }

    private void insertJobs(Connection connection) throws SQLException {
        long nextTriggerMs = to.toEpochMilli();
        try (PreparedStatement ps = connection.prepareStatement("INSERT INTO tw_job (id, name, schedule_type,"
                + " schedule_period_ms, schedule_at_ms, target_type, target_value, enabled, misfire_policy,"
                + " retry_max_attempts, retry_backoff_ms, next_trigger_time_ms, created_at_ms, updated_at_ms, version,"
                + " shard) VALUES (?, ?, 'FIXED_RATE', 60000, ?, 'WEBHOOK', ?, TRUE, 'FIRE_ONCE_NOW', 3, 1000, ?, ?, ?,"
                + " 0, ?)")) {
            for (int j = 1; j <= jobs; j++) {
                long id = jobId(j);
                long createdMs = jobCreatedAt(j).toEpochMilli();
                ps.setLong(1, id);
                ps.setString(2, jobName(j));
                ps.setLong(3, createdMs);
                ps.setString(4, "http://127.0.0.1:9/" + jobName(j));
                ps.setLong(5, nextTriggerMs);
                ps.setLong(6, createdMs);
                ps.setLong(7, createdMs);
                ps.setInt(8, Shards.of(id, Shards.DEFAULT_COUNT));
                ps.addBatch();
                if (j % BATCH == 0 || j == jobs) {
                    ps.executeBatch();
                }
            }
        }
    }

    /**
     * The instances, one row per {@code r.x} of {@code range}. Every expression mirrors a formula above; integer
     * division truncates on both databases (all operands are integers).
     */
    private String instancesSql(String range) {
        long fromMs = from.toEpochMilli();
        String x = "r.x";
        String created = "(" + fromMs + " + (" + x + " - 1) * " + spanMs() + " / " + instances + ")";
        String jobIndex = "(MOD(" + x + " - 1, " + jobs + ") + 1)";
        // jobId(j) = (jobCreatedMs(j) - EPOCH_MS) << 22 | NODE << 12, jobCreatedMs(j) = fromMs - (jobs - j + 1) s
        String jobId = "((" + (fromMs - EPOCH_MS) + " - (" + jobs + " - " + jobIndex + " + 1) * 1000) * " + SHIFT_22
                + " + " + ((long) NODE << 12) + ")";
        String id = "((" + created + " - " + EPOCH_MS + ") * " + SHIFT_22 + " + " + ((long) NODE << 12)
                + " + MOD(" + x + " - 1, 4096))";
        String waitingFrom = Long.toString(instances - waiting);
        String status = "CASE WHEN " + x + " > " + waitingFrom + " THEN 'WAITING'"
                + " WHEN MOD(" + x + ", 100) = 0 THEN 'FAILED' WHEN MOD(" + x + ", 100) = 1 THEN 'CANCELLED'"
                + " WHEN MOD(" + x + ", 100) = 2 THEN 'INTERRUPTED' ELSE 'SUCCEEDED' END";
        String claimed = x + " <= " + waitingFrom + " AND MOD(" + x + ", 100) <> 1";
        String attempt = "CASE WHEN NOT (" + claimed + ") THEN 0 WHEN MOD(" + x + ", 100) = 0 THEN 3"
                + " WHEN MOD(" + x + ", 100) BETWEEN 3 AND 7 THEN 2 ELSE 1 END";
        String onDemand = "MOD(" + x + ", 10) = 0";
        String expected = "CASE WHEN " + onDemand + " THEN " + created + " ELSE " + created + " + 30000 END";
        String actual = "CASE WHEN " + claimed + " THEN " + expected + " + MOD(" + x + ", 50) END";
        String error = "CASE WHEN MOD(" + x + ", 100) = 0 AND " + claimed
                + " THEN 'HTTP 500 from the target after 3 attempts'"
                + " WHEN MOD(" + x + ", 100) = 2 AND " + claimed
                + " THEN 'interrupted: the server stopped during an AT_MOST_ONCE call' END";
        return "INSERT INTO tw_instance (id, job_id, status, scheduled_trigger_time_ms, expected_trigger_time_ms,"
                + " actual_trigger_time_ms, attempt, error, created_at_ms, updated_at_ms, shard, claim_node,"
                + " claim_epoch)"
                + " SELECT " + id + ", j.id, " + status + ", CASE WHEN " + onDemand + " THEN NULL ELSE " + expected
                + " END, " + expected + ", " + actual + ", " + attempt + ", " + error + ", " + created
                + ", COALESCE(" + actual + " + 120, " + created + "), j.shard,"
                + " CASE WHEN " + claimed + " THEN " + NODE + " ELSE -1 END,"
                + " CASE WHEN " + claimed + " THEN 1 ELSE 0 END"
                + " FROM " + range + " JOIN tw_job j ON j.id = " + jobId;
    }

    /** Attempt {@code n} of every instance past it (attempt > n): started 2 s per later attempt before the last. */
    private static String attemptsSql(int n) {
        return "INSERT INTO tw_attempt (instance_id, attempt, started_at_ms, ended_at_ms, expected_trigger_time_ms,"
                + " error, claim_node, claim_epoch)"
                + " SELECT id, " + n + ", actual_trigger_time_ms - 2000 * (attempt - " + n + "),"
                + " actual_trigger_time_ms - 2000 * (attempt - " + n + ") + 80,"
                + " actual_trigger_time_ms - 2000 * (attempt - " + n + ") - 5, 'HTTP 503 from the target',"
                + " claim_node, claim_epoch FROM tw_instance WHERE attempt > " + n;
    }
}
