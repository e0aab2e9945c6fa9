package dev.tickwheel.server.store.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.access.ApiToken;
import dev.tickwheel.server.access.AuditEntry;
import dev.tickwheel.server.access.AuditFilter;
import dev.tickwheel.server.access.Namespace;
import dev.tickwheel.server.access.Namespaces;
import dev.tickwheel.server.access.Role;
import dev.tickwheel.server.access.TokenSecrets;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.JobOperations;
import dev.tickwheel.server.job.NewJob;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.store.AccessStore;
import dev.tickwheel.server.store.AuditStore;
import dev.tickwheel.server.store.InstanceFilter;
import dev.tickwheel.server.store.Page;
import dev.tickwheel.time.MisfirePolicy;
import dev.tickwheel.time.ScheduleSpec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What the access and audit stores must do, once per database: namespaces, tokens stored as hashes only, the
 * namespace of jobs (kept after their deletion) and the listings it filters, the audit trail's filters, paging and
 * purge, and names created by many callers at once. Each test starts from empty tables.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractAccessStoreContractTest {

    static final Instant NOW = Instant.parse("2030-01-01T00:00:00.123Z");

    private final AtomicLong ids = new AtomicLong(1_000);
    protected JdbcStores stores;
    protected AccessStore access;
    protected AuditStore audit;

    /** Creates an empty database for this test class and returns its JDBC URL. */
    protected abstract String createDatabase() throws Exception;

    /** Removes what {@link #createDatabase()} created. */
    protected abstract void dropDatabase() throws Exception;

    @BeforeAll
    void openStores() throws Exception {
        stores = JdbcStores.open(JdbcStoreConfig.builder().jdbcUrl(createDatabase())
                .poolName("tickwheel-access-store-test").maxPoolSize(10).build());
        access = stores.access();
        audit = stores.audit();
    }

    @AfterAll
    void closeStores() throws Exception {
        if (stores != null) {
            stores.close();
        }
        dropDatabase();
    }

    @BeforeEach
    void emptyTables() throws SQLException {
        execute("DELETE FROM tw_audit", "DELETE FROM tw_api_token", "DELETE FROM tw_instance",
                "DELETE FROM tw_job", "DELETE FROM tw_job_namespace",
                "DELETE FROM tw_namespace WHERE name <> '" + Namespaces.DEFAULT + "'");
    }

    @Test
    void namespaces_defaultExists_insertOnce_listByName() {
        assertTrue(access.namespace(Namespaces.DEFAULT).isPresent(), "schema 18 makes the default namespace");
        assertTrue(access.insertNamespace(new Namespace("payments", NOW)));
        assertFalse(access.insertNamespace(new Namespace("payments", NOW.plusSeconds(1))), "taken");
        assertTrue(access.insertNamespace(new Namespace("billing", NOW)));
        assertEquals(List.of("billing", Namespaces.DEFAULT, "payments"),
                access.namespaces().stream().map(Namespace::name).toList());
        assertEquals(NOW, access.namespace("payments").orElseThrow().createdAt());
    }

    @Test
    void tokens_storedAsHashOnly_foundByHash_revokedOnce_touched() throws SQLException {
        access.insertNamespace(new Namespace("payments", NOW));
        String secret = TokenSecrets.newSecret();
        ApiToken token = new ApiToken(ids.incrementAndGet(), "ci", "payments", Role.OPERATE, NOW,
                NOW.plus(Duration.ofDays(30)), null, null);
        assertTrue(access.insertToken(token, TokenSecrets.hash(secret)));
        assertFalse(access.insertToken(new ApiToken(ids.incrementAndGet(), "ci", null, Role.READ, NOW, null, null,
                null), TokenSecrets.hash(TokenSecrets.newSecret())), "a name is taken once");

        assertEquals(token, access.tokenByHash(TokenSecrets.hash(secret)).orElseThrow());
        assertTrue(access.tokenByHash(TokenSecrets.hash(secret + "x")).isEmpty());
        // The stored row: no column holds the secret, the hash column holds its SHA-256.
        try (Connection connection = stores.dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT * FROM tw_api_token")) {
            assertTrue(rs.next());
            for (int c = 1; c <= rs.getMetaData().getColumnCount(); c++) {
                String value = rs.getString(c);
                assertFalse(value != null && value.contains(secret.substring(TokenSecrets.PREFIX.length())),
                        "column " + rs.getMetaData().getColumnName(c) + " holds the secret");
            }
            assertEquals(TokenSecrets.hash(secret), rs.getString("secret_sha256"));
        }

        access.touchToken(token.id(), NOW.plusSeconds(60));
        assertEquals(NOW.plusSeconds(60), access.token(token.id()).orElseThrow().lastUsedAt());
        assertTrue(access.revokeToken(token.id(), NOW.plusSeconds(120)));
        assertFalse(access.revokeToken(token.id(), NOW.plusSeconds(180)), "revoked once: the first time stays");
        ApiToken revoked = access.token(token.id()).orElseThrow();
        assertEquals(NOW.plusSeconds(120), revoked.revokedAt());
        assertFalse(revoked.activeAt(NOW.plusSeconds(121)));
        assertEquals(List.of("ci"), access.tokens("payments").stream().map(ApiToken::name).toList());
        assertEquals(List.of(), access.tokens("billing"));
        assertTrue(access.anyToken());
    }

    @Test
    void tokenName_createdByManyAtOnce_storedOnce() throws Exception {
        int callers = 8;
        CyclicBarrier start = new CyclicBarrier(callers);
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        try {
            for (int round = 0; round < 20; round++) {
                String name = "race-" + round;
                List<Future<Boolean>> results = new ArrayList<>();
                for (int i = 0; i < callers; i++) {
                    long id = ids.incrementAndGet();
                    results.add(pool.submit(() -> {
                        start.await();
                        return access.insertToken(new ApiToken(id, name, null, Role.READ, NOW, null, null, null),
                                TokenSecrets.hash(TokenSecrets.newSecret()));
                    }));
                }
                int stored = 0;
                for (Future<Boolean> result : results) {
                    stored += result.get() ? 1 : 0; // a loser hears false, never a store failure
                }
                assertEquals(1, stored, name);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(20, access.tokens(null).size());
    }

    @Test
    void jobNamespaces_keptAfterDeletion_filterJobsAndInstances() throws SQLException {
        access.insertNamespace(new Namespace("payments", NOW));
        long mine = insertJob("payments");
        long other = insertJob(Namespaces.DEFAULT);
        long mineInstance = insertInstance(mine);
        long otherInstance = insertInstance(other);
        // A job deleted before schema 18: its instances stay, with no namespace row.
        long legacy = insertJob(Namespaces.DEFAULT);
        long legacyInstance = insertInstance(legacy);
        stores.jobs().delete(legacy);
        execute("DELETE FROM tw_job_namespace WHERE job_id = " + legacy);

        assertEquals(Map.of(mine, "payments", other, Namespaces.DEFAULT),
                access.namespacesOfJobs(List.of(mine, other, legacy)), "none recorded for the legacy job");
        assertEquals(Set.of(mine), idsOf(stores.jobs().search(null, null, 10, "payments").items()));
        assertEquals(Set.of(mineInstance), instanceIds("payments"));
        assertEquals(Set.of(otherInstance, legacyInstance), instanceIds(Namespaces.DEFAULT));
        assertEquals(Set.of(mineInstance, otherInstance, legacyInstance), instanceIds(null));

        stores.jobs().delete(mine);
        assertEquals(Map.of(mine, "payments"), access.namespacesOfJobs(List.of(mine)), "kept after deletion");
        assertEquals(Set.of(mineInstance), instanceIds("payments"), "its history stays in its namespace");
        assertEquals(Set.of(), idsOf(stores.jobs().search(null, null, 10, "payments").items()));
    }

    @Test
    void audit_newestFirst_filters_pages_purge() {
        List<AuditEntry> written = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            Instant at = NOW.plusSeconds(i);
            long id = SnowflakeIdGenerator.lowestIdAt(at) + i;
            written.add(new AuditEntry(id, at, i % 2 == 0 ? "alice" : "bob", i % 5 == 0 ? null : "payments",
                    i % 3 == 0 ? "PUT /api/jobs/{id}" : "POST /api/jobs/{id}/run", "job " + (i % 4), 200 + i,
                    i % 2 == 0 ? "{\"name\":{\"from\":\"a\",\"to\":\"b\"}}" : null));
        }
        audit.append(written.subList(0, 10));
        audit.append(written.subList(10, 25));

        Page<AuditEntry, Long> first = audit.list(AuditFilter.ALL, Long.MAX_VALUE, 10);
        assertEquals(written.get(24), first.items().get(0), "newest first, every field read back");
        List<AuditEntry> all = new ArrayList<>(first.items());
        Long cursor = first.nextCursor().orElseThrow();
        while (cursor != null) {
            Page<AuditEntry, Long> page = audit.list(AuditFilter.ALL, cursor, 10);
            all.addAll(page.items());
            cursor = page.nextCursor().orElse(null);
        }
        assertEquals(25, all.size());
        assertEquals(reversed(written), all);

        assertEquals(expected(written, e -> e.actor().equals("alice")),
                audit.list(new AuditFilter("alice", null, null, null, null, null), Long.MAX_VALUE, 100).items());
        assertEquals(expected(written, e -> "payments".equals(e.namespace())),
                audit.list(new AuditFilter(null, "payments", null, null, null, null), Long.MAX_VALUE, 100).items());
        assertEquals(expected(written, e -> e.action().startsWith("PUT")),
                audit.list(new AuditFilter(null, null, "put /api", null, null, null), Long.MAX_VALUE, 100).items(),
                "action: contains, ignoring case");
        assertEquals(expected(written, e -> e.target().equals("job 3")),
                audit.list(new AuditFilter(null, null, null, "job 3", null, null), Long.MAX_VALUE, 100).items());
        assertEquals(expected(written, e -> !e.at().isBefore(NOW.plusSeconds(5)) && e.at().isBefore(NOW.plusSeconds(9))),
                audit.list(new AuditFilter(null, null, null, null, NOW.plusSeconds(5), NOW.plusSeconds(9)),
                        Long.MAX_VALUE, 100).items());
        assertEquals(List.of(), audit.list(new AuditFilter(null, null, "100%_", null, null, null), Long.MAX_VALUE,
                100).items(), "LIKE's metacharacters match themselves");

        assertEquals(7, audit.purgeBefore(NOW.plusSeconds(7), 1000));
        assertEquals(3, audit.purgeBefore(NOW.plusSeconds(10), 3), "at most the limit");
        assertEquals(15, audit.list(AuditFilter.ALL, Long.MAX_VALUE, 100).items().size());
    }

    private static List<AuditEntry> reversed(List<AuditEntry> entries) {
        List<AuditEntry> copy = new ArrayList<>(entries);
        java.util.Collections.reverse(copy);
        return copy;
    }

    private static List<AuditEntry> expected(List<AuditEntry> written, java.util.function.Predicate<AuditEntry> test) {
        return reversed(written).stream().filter(test).toList();
    }

    private Set<Long> instanceIds(String namespace) {
        return stores.instances().listLatest(new InstanceFilter(null, null, 0, Long.MAX_VALUE, namespace),
                Long.MAX_VALUE, 100).items().stream().map(Instance::id).collect(Collectors.toSet());
    }

    private static Set<Long> idsOf(List<dev.tickwheel.server.job.Job> jobs) {
        return jobs.stream().map(dev.tickwheel.server.job.Job::id).collect(Collectors.toSet());
    }

    private long insertJob(String namespace) {
        long id = ids.incrementAndGet();
        stores.jobs().insertAll(List.of(new NewJob(id, "job-" + id, ScheduleSpec.api(),
                Target.handler("noop"), null, true, MisfirePolicy.FIRE_ONCE_NOW,
                RetryPolicy.NONE, DeliveryPolicy.DEFAULT, JobOperations.DEFAULT, null)), namespace);
        return id;
    }

    private long insertInstance(long jobId) {
        long id = ids.incrementAndGet();
        stores.instances().insertRuns(List.of(new NewInstance(id, jobId, NOW.plusSeconds(3600), null)));
        return id;
    }

    private void execute(String... statements) throws SQLException {
        try (Connection connection = stores.dataSource().getConnection()) {
            for (String sql : statements) {
                try (PreparedStatement ps = connection.prepareStatement(sql)) {
                    ps.executeUpdate();
                }
            }
        }
    }
}
