package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.store.SecretBox;
import dev.tickwheel.server.store.SecretKeyMismatchException;
import dev.tickwheel.server.store.UnreadableSecretException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's secrets at start ({@link JdbcStores#open}), before anything reads them: refuses a store whose secrets
 * are under a key this server was not given, and brings every secret under the current key.
 *
 * <pre>
 *   1. key ids in use: the jobs' (a walk over tw_job_secret_key_idx: one probe per distinct id, "plain" included),
 *      and the callback key's (its stored form)
 *   2. any of them neither given nor "plain"   -&gt; SecretKeyMismatchException (the server does not start)
 *   3. no current key                           -&gt; nothing changes; one warning if jobs keep secrets as given
 *   4. for each id in use but the current one   -&gt; re-encrypt its jobs' secrets, BATCH_SIZE rows a transaction in id
 *      order, each row by compare-and-set on the value read; then the callback key, the same way
 * </pre>
 *
 * <p>Idempotent, and safe when several members start at once: a row another member (or a user's update) changed since
 * it was read is left alone, and whatever it became is under a key that member had. The cost at start is a handful of
 * index probes when every secret is under the current key already; a rotation costs one read and one batched update per
 * {@value #BATCH_SIZE} secrets.
 *
 * <p>Not thread-safe: run once, by the thread that opens the store.
 *
 * <p>Caveats: a member still running with only the old key keeps writing under it until it restarts with the new
 * one (which re-encrypts them at its start); a member that does not know the new key cannot read what the others
 * re-encrypted, hence the rotation steps in the README. A secret that does not decrypt stops the start, naming its job.
 */
final class SecretsAtRest {

    /** Secrets re-encrypted per transaction. */
    static final int BATCH_SIZE = 500;
    /** The most distinct key ids the walk reads: a store has a few (plain, the current, a previous one). */
    private static final int MAX_KEY_IDS = 100;

    private static final Logger log = LoggerFactory.getLogger(SecretsAtRest.class);

    private final TransactionRunner runner;
    private final SecretBox box;

    SecretsAtRest(TransactionRunner runner, SecretBox box) {
        this.runner = runner;
        this.box = box;
    }

    /**
     * Checks the key ids in use, then re-encrypts what is not under the current key.
     *
     * @throws SecretKeyMismatchException if a secret is under a key that was not given
     * @throws UnreadableSecretException naming the job, if a secret does not decrypt
     */
    void prepare() {
        long startNanos = System.nanoTime();
        Set<String> jobKeyIds = runner.autoCommit("read the key ids of the jobs' secrets", SecretsAtRest::jobKeyIds);
        Optional<String> storedCallbackKey = runner.autoCommit("read the callback key", SecretsAtRest::callbackKey);
        Set<String> inUse = new TreeSet<>(jobKeyIds);
        storedCallbackKey.ifPresent(stored -> inUse.add(keyIdOfCallbackKey(stored)));
        List<String> unknown = inUse.stream().filter(id -> !id.equals(SecretBox.PLAIN) && !box.keys().knows(id))
                .toList();
        if (!unknown.isEmpty()) {
            throw new SecretKeyMismatchException(unknown, box.keys().currentKeyId().isPresent());
        }
        Optional<String> current = box.keys().currentKeyId();
        if (current.isEmpty()) {
            if (jobKeyIds.contains(SecretBox.PLAIN)) {
                log.warn("secrets at rest: jobs' signing secrets (and the cluster's callback key) are stored as given,"
                        + " readable by anyone who reads the database or its backups; give a secret key (server:"
                        + " --secret-key; embedded: secretKey) to encrypt them");
            }
            return;
        }
        List<String> older = inUse.stream().filter(id -> !id.equals(current.get())).toList();
        long resealed = 0;
        for (String keyId : jobKeyIds) {
            if (!keyId.equals(current.get())) {
                resealed += resealJobs(keyId);
            }
        }
        boolean callbackKeyResealed = storedCallbackKey.isPresent() && resealCallbackKey(storedCallbackKey.get());
        if (older.isEmpty()) {
            log.info("secrets at rest: every secret is under key id {}", current.get());
        } else {
            log.info("secrets at rest: {} job secret(s){} re-encrypted from key id(s) {} under key id {} in {} ms",
                    resealed, callbackKeyResealed ? " and the callback key" : "", older, current.get(),
                    (System.nanoTime() - startNanos) / 1_000_000);
        }
    }

    /** The distinct key ids of the jobs' secrets: each is the next entry of the index after the one before. */
    private static Set<String> jobKeyIds(Connection connection) throws SQLException {
        Set<String> ids = new TreeSet<>();
        try (PreparedStatement ps = connection.prepareStatement(JobSql.SELECT_SECRET_KEY_ID_FROM)) {
            String after = "";
            while (ids.size() < MAX_KEY_IDS) {
                ps.setString(1, JobSql.keyIdsFrom(after));
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        break;
                    }
                    after = rs.getString(1);
                }
                ids.add(after);
            }
        }
        return ids;
    }

    private static Optional<String> callbackKey(Connection connection) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(ClusterSql.SELECT_CALLBACK_KEY);
                ResultSet rs = ps.executeQuery()) {
            return rs.next() ? Optional.ofNullable(rs.getString(1)) : Optional.empty();
        }
    }

    private static String keyIdOfCallbackKey(String stored) {
        if (!SecretBox.isSealed(stored)) {
            return SecretBox.PLAIN;
        }
        return SecretBox.keyIdOf(stored).orElseThrow(() -> new UnreadableSecretException("the cluster's callback key"
                + " (tw_cluster.callback_key) cannot be read: it is not an encrypted value"));
    }

    /** Every job secret under {@code keyId} re-encrypted under the current key, a batch per transaction. */
    private long resealJobs(String keyId) {
        long resealed = 0;
        long afterId = Long.MIN_VALUE;
        while (true) {
            List<StoredSecret> page = readPage(keyId, afterId);
            if (page.isEmpty()) {
                return resealed;
            }
            resealed += runner.inTransaction("re-encrypt " + page.size() + " job secrets",
                    connection -> reseal(connection, keyId, page));
            afterId = page.get(page.size() - 1).jobId();
        }
    }

    private record StoredSecret(long jobId, String stored) {
    }

    private List<StoredSecret> readPage(String keyId, long afterId) {
        return runner.autoCommit("read job secrets under key id " + keyId, connection -> {
            try (PreparedStatement ps = connection.prepareStatement(JobSql.SELECT_SECRETS_UNDER_KEY)) {
                ps.setString(1, keyId);
                ps.setLong(2, afterId);
                ps.setInt(3, BATCH_SIZE);
                List<StoredSecret> page = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        page.add(new StoredSecret(rs.getLong(1), rs.getString(2)));
                    }
                }
                return page;
            }
        });
    }

    private long reseal(Connection connection, String keyId, List<StoredSecret> page) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(JobSql.RESEAL_SECRET)) {
            for (StoredSecret secret : page) {
                String plain = SecretColumns.openSigningSecret(box, secret.jobId(), secret.stored(), keyId);
                SecretBox.Sealed sealed = SecretColumns.sealSigningSecret(box, secret.jobId(), plain);
                ps.setString(1, sealed.stored());
                ps.setString(2, sealed.keyId());
                ps.setLong(3, secret.jobId());
                ps.setString(4, keyId);
                ps.setString(5, secret.stored());
                ps.addBatch();
            }
            long changed = 0;
            for (int count : ps.executeBatch()) {
                changed += Math.max(count, 0);
            }
            return changed;
        }
    }

    /** The callback key re-encrypted under the current key, unless it is already; whether this member wrote it. */
    private boolean resealCallbackKey(String stored) {
        String currentId = box.keys().currentKeyId().orElseThrow();
        if (SecretBox.keyIdOf(stored).filter(currentId::equals).isPresent()) {
            return false;
        }
        String hex = SecretColumns.openCallbackKey(box, stored);
        String sealed = SecretColumns.sealCallbackKey(box, hex).stored();
        return runner.inTransaction("re-encrypt the callback key", connection -> {
            try (PreparedStatement ps = connection.prepareStatement(ClusterSql.RESEAL_CALLBACK_KEY)) {
                ps.setString(1, sealed);
                ps.setString(2, stored);
                return ps.executeUpdate() == 1;
            }
        });
    }
}
