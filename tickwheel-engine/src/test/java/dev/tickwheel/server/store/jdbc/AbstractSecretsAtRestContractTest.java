package dev.tickwheel.server.store.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.dispatch.CallbackTokens;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.JobOperations;
import dev.tickwheel.server.job.NewJob;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.store.CallbackAttempt;
import dev.tickwheel.server.store.SecretBox;
import dev.tickwheel.server.store.SecretKeyMismatchException;
import dev.tickwheel.server.store.SecretKeys;
import dev.tickwheel.server.store.TestKeys;
import dev.tickwheel.server.store.UnreadableSecretException;
import dev.tickwheel.time.MisfirePolicy;
import dev.tickwheel.time.ScheduleSpec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Secrets at rest, run once per database by a subclass: what the columns hold (read with plain SQL, not through the
 * store), rotation from one key to another across reopenings of the store (a restart), a plain store given a key,
 * refusals of a wrong or missing key, a damaged value, and several members re-encrypting at once. Each test starts
 * from a database of its own.
 */
abstract class AbstractSecretsAtRestContractTest {

    private static final String SECRET = "whsec_0123456789abcdef";
    static final SecretKeys KEY_A = TestKeys.keys(1);
    private static final SecretKeys KEY_B = TestKeys.keys(2);
    private static final SecretKeys KEY_B_AFTER_A = TestKeys.keys(2, 1);
    static final String ID_A = TestKeys.idOf(1);
    private static final String ID_B = TestKeys.idOf(2);

    private final AtomicLong ids = new AtomicLong(1_000);
    private final List<JdbcStores> opened = new ArrayList<>();
    private String url;

    /** Creates an empty database for one test and returns its JDBC URL. */
    protected abstract String createDatabase() throws Exception;

    /** Removes what {@link #createDatabase()} created. */
    protected abstract void dropDatabase() throws Exception;

    @BeforeEach
    void createStore() throws Exception {
        url = createDatabase();
    }

    @AfterEach
    void dropStore() throws Exception {
        opened.forEach(JdbcStores::close);
        dropDatabase();
    }

    /** Opens the store as a starting member does, with these keys. */
    JdbcStores open(SecretKeys keys) {
        JdbcStores stores = JdbcStores.open(JdbcStoreConfig.builder().jdbcUrl(url).poolName("tickwheel-secrets-test")
                .maxPoolSize(4).secretKeys(keys).build());
        opened.add(stores);
        return stores;
    }

    /** A restart: the member's store closed. */
    void close(JdbcStores stores) {
        stores.close();
        opened.remove(stores);
    }

    private NewJob signedJob(String secret) {
        return new NewJob(ids.incrementAndGet(), "signed", ScheduleSpec.api(), Target.webhook("http://127.0.0.1:9/"),
                null, true, MisfirePolicy.FIRE_ONCE_NOW, RetryPolicy.NONE, DeliveryPolicy.DEFAULT,
                JobOperations.DEFAULT.withSigningSecret(secret), null);
    }

    /** A secret of 16..256 characters, distinct per index. */
    private static String secretOf(int index) {
        return "secret-" + index + "-" + "x".repeat(index % 200 + 9);
    }

    /** The signing secret and its key id as the columns hold them, read with plain SQL. */
    record StoredSecret(String stored, String keyId) {
    }

    static StoredSecret storedSecret(JdbcStores stores, long jobId) throws SQLException {
        try (Connection connection = stores.dataSource().getConnection();
                PreparedStatement ps = connection.prepareStatement(
                        "SELECT signing_secret, signing_secret_key_id FROM tw_job WHERE id = ?")) {
            ps.setLong(1, jobId);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next(), "job " + jobId);
                return new StoredSecret(rs.getString(1), rs.getString(2));
            }
        }
    }

    /** Every stored secret by job id, read with plain SQL. */
    static Map<Long, StoredSecret> storedSecrets(JdbcStores stores) throws SQLException {
        Map<Long, StoredSecret> all = new TreeMap<>();
        try (Connection connection = stores.dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT id, signing_secret, signing_secret_key_id FROM tw_job"
                        + " WHERE signing_secret IS NOT NULL")) {
            while (rs.next()) {
                all.put(rs.getLong(1), new StoredSecret(rs.getString(2), rs.getString(3)));
            }
        }
        return all;
    }

    static String storedCallbackKey(JdbcStores stores) throws SQLException {
        try (Connection connection = stores.dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT callback_key FROM tw_cluster WHERE id = 1")) {
            assertTrue(rs.next());
            return rs.getString(1);
        }
    }

    private static void execute(JdbcStores stores, String sql, Object... params) throws SQLException {
        try (Connection connection = stores.dataSource().getConnection();
                PreparedStatement ps = connection.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            ps.executeUpdate();
        }
    }

    /** Asserts that every stored secret is sealed under {@code keyId} and that none holds its plain secret. */
    private static void assertAllUnder(String keyId, Map<Long, StoredSecret> stored, Map<Long, String> plain) {
        assertEquals(plain.keySet(), stored.keySet());
        stored.forEach((jobId, secret) -> {
            assertEquals(keyId, secret.keyId(), "job " + jobId);
            assertTrue(secret.stored().startsWith("tw1:" + keyId + ":"), "job " + jobId + ": " + secret.stored());
            assertFalse(secret.stored().contains(plain.get(jobId)), "job " + jobId + " holds its plain secret");
        });
    }

    private static void assertReadBack(JdbcStores stores, Map<Long, String> plain) {
        Map<Long, Job> jobs = stores.jobs().getAll(plain.keySet());
        plain.forEach((jobId, secret) -> assertEquals(secret, jobs.get(jobId).operations().signingSecret(),
                "job " + jobId));
    }

    Map<Long, String> insertSigned(JdbcStores stores, int count) {
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            jobs.add(signedJob(secretOf(i)));
        }
        Map<Long, String> plain = new TreeMap<>();
        for (Job job : stores.jobs().insertAll(jobs)) {
            plain.put(job.id(), job.operations().signingSecret());
        }
        return plain;
    }

    @Test
    void insertAndUpdate_withKey_columnHoldsNoPlainSecret_sameSecretStoredDifferently() throws Exception {
        JdbcStores stores = open(KEY_A);
        Job first = stores.jobs().insert(signedJob(SECRET));
        Job second = stores.jobs().insert(signedJob(SECRET));
        Job unsigned = stores.jobs().insert(signedJob(null));

        StoredSecret one = storedSecret(stores, first.id());
        StoredSecret two = storedSecret(stores, second.id());
        assertAllUnder(ID_A, Map.of(first.id(), one, second.id(), two),
                Map.of(first.id(), SECRET, second.id(), SECRET));
        assertNotEquals(one.stored(), two.stored(), "a fresh IV per value");
        assertEquals(new StoredSecret(null, null), storedSecret(stores, unsigned.id()));
        assertEquals(SECRET, stores.jobs().get(first.id()).orElseThrow().operations().signingSecret());

        String rotated = "whsec_rotated_by_the_user_0001";
        Job changed = stores.jobs().update(new Job(first.id(), first.name(), first.schedule(), first.target(),
                first.params(), first.enabled(), first.misfirePolicy(), first.retryPolicy(), first.delivery(),
                first.operations().withSigningSecret(rotated), first.nextTriggerTime(), first.scheduledRuns(),
                first.createdAt(), first.updatedAt(), first.version())).orElseThrow();
        assertEquals(rotated, changed.operations().signingSecret());
        StoredSecret updated = storedSecret(stores, first.id());
        assertAllUnder(ID_A, Map.of(first.id(), updated), Map.of(first.id(), rotated));
    }

    @Test
    void callbackKey_withKey_notStoredPlain_tokensVerifyAcrossRestartsAndRotation() throws Exception {
        JdbcStores stores = open(KEY_A);
        byte[] key = stores.cluster().callbackKey();
        String token = new CallbackTokens(key).issue(new CallbackAttempt(42, 1, 7));
        String stored = storedCallbackKey(stores);
        assertTrue(stored.startsWith("tw1:" + ID_A + ":"), stored);
        assertFalse(stored.contains(HexFormat.of().formatHex(key)));
        close(stores);

        JdbcStores rotated = open(KEY_B_AFTER_A);
        assertTrue(storedCallbackKey(rotated).startsWith("tw1:" + ID_B + ":"), storedCallbackKey(rotated));
        assertEquals(new CallbackAttempt(42, 1, 7),
                new CallbackTokens(rotated.cluster().callbackKey()).verify(token).orElseThrow());
        close(rotated);

        JdbcStores newKeyOnly = open(KEY_B);
        assertEquals(new CallbackAttempt(42, 1, 7),
                new CallbackTokens(newKeyOnly.cluster().callbackKey()).verify(token).orElseThrow());
    }

    @Test
    void rotation_keyAThenBBesideAThenBAlone_everySecretUnderBAndReadable() throws Exception {
        JdbcStores first = open(KEY_A);
        // More than two batches of re-encryption, and jobs without a secret in between.
        Map<Long, String> plain = insertSigned(first, 2 * SecretsAtRest.BATCH_SIZE + 37);
        long unsigned = first.jobs().insert(signedJob(null)).id();
        first.cluster().callbackKey();
        assertAllUnder(ID_A, storedSecrets(first), plain);
        close(first);

        JdbcStores rotated = open(KEY_B_AFTER_A);
        assertAllUnder(ID_B, storedSecrets(rotated), plain);
        assertTrue(storedCallbackKey(rotated).startsWith("tw1:" + ID_B + ":"));
        assertEquals(new StoredSecret(null, null), storedSecret(rotated, unsigned));
        assertReadBack(rotated, plain);
        close(rotated);

        JdbcStores newKeyOnly = open(KEY_B);
        assertAllUnder(ID_B, storedSecrets(newKeyOnly), plain);
        assertReadBack(newKeyOnly, plain);
    }

    @Test
    void plainStore_openedWithAKey_secretsAndCallbackKeyEncrypted() throws Exception {
        JdbcStores plainStore = open(SecretKeys.NONE);
        Map<Long, String> plain = insertSigned(plainStore, 10);
        byte[] callbackKey = plainStore.cluster().callbackKey();
        storedSecrets(plainStore).forEach((jobId, stored) ->
                assertEquals(new StoredSecret(plain.get(jobId), SecretBox.PLAIN), stored, "kept as given"));
        assertEquals(HexFormat.of().formatHex(callbackKey), storedCallbackKey(plainStore));
        close(plainStore);

        JdbcStores keyed = open(KEY_A);
        assertAllUnder(ID_A, storedSecrets(keyed), plain);
        assertReadBack(keyed, plain);
        String stored = storedCallbackKey(keyed);
        assertTrue(stored.startsWith("tw1:" + ID_A + ":"), stored);
        assertEquals(HexFormat.of().formatHex(callbackKey), HexFormat.of().formatHex(keyed.cluster().callbackKey()));
    }

    @Test
    void open_wrongKey_refusesNamingTheStoresKeyId() {
        JdbcStores stores = open(KEY_A);
        stores.jobs().insert(signedJob(SECRET));
        close(stores);

        SecretKeyMismatchException e = assertThrows(SecretKeyMismatchException.class, () -> open(KEY_B));
        assertEquals("secretKey does not match the key the store's secrets are encrypted with (key id " + ID_A
                + "); give that key, or it as previousSecretKeys beside the new one", e.getMessage());
        assertEquals("--secret-key does not match the key the store's secrets are encrypted with (key id " + ID_A
                        + "); give that key, or it as --previous-secret-keys beside the new one",
                e.describe("--secret-key", "--previous-secret-keys"));
    }

    @Test
    void open_noKeyFacingAnEncryptedCallbackKey_refuses() {
        JdbcStores stores = open(KEY_A);
        stores.cluster().callbackKey();
        close(stores);

        SecretKeyMismatchException e = assertThrows(SecretKeyMismatchException.class,
                () -> open(SecretKeys.NONE));
        assertEquals("the store's secrets are encrypted (key id " + ID_A + ") and no secretKey is given; give the key"
                + " they are encrypted with as secretKey", e.getMessage());
    }

    @Test
    void open_noKeyOnAPlainStore_opensAndKeepsSecretsAsGiven() throws Exception {
        JdbcStores stores = open(SecretKeys.NONE);
        Job job = stores.jobs().insert(signedJob(SECRET));
        close(stores);

        JdbcStores again = open(SecretKeys.NONE);
        assertEquals(new StoredSecret(SECRET, SecretBox.PLAIN), storedSecret(again, job.id()));
        assertEquals(SECRET, again.jobs().get(job.id()).orElseThrow().operations().signingSecret());
    }

    @Test
    void read_valueCopiedFromAnotherJob_failsNamingTheJob() throws Exception {
        JdbcStores stores = open(KEY_A);
        Job victim = stores.jobs().insert(signedJob(SECRET));
        Job other = stores.jobs().insert(signedJob("whsec_the_other_jobs_secret"));
        execute(stores, "UPDATE tw_job SET signing_secret = ? WHERE id = ?",
                storedSecret(stores, other.id()).stored(), victim.id());

        UnreadableSecretException e = assertThrows(UnreadableSecretException.class,
                () -> stores.jobs().get(victim.id()));
        assertTrue(e.getMessage().startsWith("the signing secret of job " + victim.id() + " cannot be read: it does"
                + " not decrypt under key id " + ID_A + ": it was altered, or copied from another row"),
                e.getMessage());
        assertEquals("whsec_the_other_jobs_secret",
                stores.jobs().get(other.id()).orElseThrow().operations().signingSecret());
    }

    @Test
    void rotation_damagedValue_startRefusedNamingTheJob() throws Exception {
        JdbcStores stores = open(KEY_A);
        Job job = stores.jobs().insert(signedJob(SECRET));
        execute(stores, "UPDATE tw_job SET signing_secret = ? WHERE id = ?", "tw1:" + ID_A + ":AAAA", job.id());
        close(stores);

        UnreadableSecretException e = assertThrows(UnreadableSecretException.class, () -> open(KEY_B_AFTER_A));
        assertTrue(e.getMessage().startsWith("the signing secret of job " + job.id() + " cannot be read: it is too"
                + " short to be encrypted"), e.getMessage());
    }

    @Test
    void rotation_severalMembersStartingAtOnce_everySecretUnderTheNewKey() throws Exception {
        JdbcStores first = open(KEY_A);
        Map<Long, String> plain = insertSigned(first, 3 * SecretsAtRest.BATCH_SIZE);
        first.cluster().callbackKey();
        close(first);

        int members = 4;
        CyclicBarrier together = new CyclicBarrier(members);
        ExecutorService starters = Executors.newFixedThreadPool(members);
        try {
            List<Future<JdbcStores>> started = new ArrayList<>();
            for (int i = 0; i < members; i++) {
                started.add(starters.submit(() -> {
                    together.await();
                    return JdbcStores.open(JdbcStoreConfig.builder().jdbcUrl(url).maxPoolSize(4)
                            .poolName("tickwheel-secrets-test").secretKeys(KEY_B_AFTER_A).build());
                }));
            }
            for (Future<JdbcStores> member : started) {
                opened.add(member.get(2, TimeUnit.MINUTES));
            }
        } finally {
            starters.shutdownNow();
        }
        JdbcStores any = opened.get(0);
        assertAllUnder(ID_B, storedSecrets(any), plain);
        assertTrue(storedCallbackKey(any).startsWith("tw1:" + ID_B + ":"));
        assertReadBack(open(KEY_B), plain);
    }

    @Test
    void read_secretWithoutKeyIdFromAServerOlderThanSchema19_readsAsGiven() throws Exception {
        JdbcStores stores = open(SecretKeys.NONE);
        Job job = stores.jobs().insert(signedJob(SECRET));
        execute(stores, "UPDATE tw_job SET signing_secret_key_id = NULL WHERE id = ?", job.id());
        assertEquals(SECRET, stores.jobs().get(job.id()).orElseThrow().operations().signingSecret(),
                "written by a server that does not know the key id column");
        assertNull(storedSecret(stores, job.id()).keyId());
    }
}
