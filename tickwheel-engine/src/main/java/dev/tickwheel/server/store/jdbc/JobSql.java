package dev.tickwheel.server.store.jdbc;

import java.util.ArrayList;
import java.util.List;

/**
 * The SQL text of the job store; the same on H2 and PostgreSQL. Parameter order is documented per statement and
 * matched by {@link JobRowMapper}.
 *
 * <p>Immutable.
 */
final class JobSql {

    private JobSql() {
    }

    static final String COLUMNS = "id, name, schedule_type, schedule_expression, schedule_zone, schedule_period_ms,"
            + " schedule_delay_ms, schedule_at_ms, schedule_jitter_ms, schedule_spread, schedule_start_at_ms,"
            + " schedule_end_at_ms, schedule_max_runs, calendar_name, target_type, target_value, params, enabled, misfire_policy,"
            + " retry_max_attempts, retry_backoff_ms, retry_multiplier, retry_max_backoff_ms, retry_jitter,"
            + " retry_delays_ms, delivery_guarantee, timeout_ms, max_concurrent, over_limit, priority,"
            + " pool_name, completion, callback_timeout_ms, retention_days, alert_url, signing_secret,"
            + " signing_secret_key_id, next_trigger_time_ms, scheduled_runs, created_at_ms, updated_at_ms, version";

    /**
     * Parameters: the 42 {@link #COLUMNS} in order, then the shard ({@link dev.tickwheel.server.store.Shards#of}),
     * which is written once and never read back into a job (an instance carries its own).
     */
    static final String INSERT = "INSERT INTO tw_job (" + COLUMNS + ", shard)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
            + " ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

    /**
     * Parameters: name .. next_trigger_time_ms (the 37 definition columns, as in {@link #COLUMNS}), updated_at_ms,
     * id, expected version.
     */
    static final String UPDATE_IF_VERSION = "UPDATE tw_job SET name = ?, schedule_type = ?, schedule_expression = ?,"
            + " schedule_zone = ?, schedule_period_ms = ?, schedule_delay_ms = ?, schedule_at_ms = ?,"
            + " schedule_jitter_ms = ?, schedule_spread = ?, schedule_start_at_ms = ?, schedule_end_at_ms = ?,"
            + " schedule_max_runs = ?, calendar_name = ?,"
            + " target_type = ?, target_value = ?, params = ?, enabled = ?, misfire_policy = ?,"
            + " retry_max_attempts = ?, retry_backoff_ms = ?, retry_multiplier = ?, retry_max_backoff_ms = ?,"
            + " retry_jitter = ?, retry_delays_ms = ?, delivery_guarantee = ?, timeout_ms = ?,"
            + " max_concurrent = ?, over_limit = ?, priority = ?, pool_name = ?, completion = ?, callback_timeout_ms = ?,"
            + " retention_days = ?, alert_url = ?, signing_secret = ?, signing_secret_key_id = ?,"
            + " next_trigger_time_ms = ?,"
            + " updated_at_ms = ?, version = version + 1"
            + " WHERE id = ? AND version = ?";

    /** Parameters: id. Locks the row so that instance creation for the job waits for the delete. */
    static final String LOCK_BY_ID = "SELECT id FROM tw_job WHERE id = ? FOR UPDATE";

    /** Parameters: id, version. Locks the job at that version and reads what decides where its instances go. */
    static final String LOCK_PLACEMENT_IF_VERSION = "SELECT max_concurrent, schedule_type, pool_name FROM tw_job"
            + " WHERE id = ? AND version = ? FOR UPDATE";

    /** Parameters: id. */
    static final String DELETE_BY_ID = "DELETE FROM tw_job WHERE id = ?";

    /** The jobs of one exact name, by id. Parameter: the name. */
    static final String SELECT_BY_NAME = "SELECT " + COLUMNS + " FROM tw_job WHERE name = ? ORDER BY id";

    /**
     * Serialises the inserts of declared jobs across members: the cluster's one row, locked until the transaction
     * ends (both databases; declarations are rare, so one lock for all of them costs nothing).
     */
    static final String LOCK_DECLARATIONS = "SELECT shard_count FROM tw_cluster WHERE id = 1 FOR UPDATE";

    static final String SELECT_BY_ID = "SELECT " + COLUMNS + " FROM tw_job WHERE id = ?";

    /** Parameters: ids (a BIGINT array). */
    static final String SELECT_BY_IDS = "SELECT " + COLUMNS + " FROM tw_job WHERE id = ANY(?)";

    /** The escape character of {@link #selectByName}'s pattern. */
    static final char LIKE_ESCAPE = '\\';

    /**
     * A page of jobs in (name, id) order, served by the (name, id) index in order. Parameters: the LIKE pattern (if
     * {@code filtered}; escaped with {@link #LIKE_ESCAPE}), then (if {@code afterCursor}) cursor name three times and
     * cursor id, then limit. Keyset paging: rows strictly after (cursor name, cursor id); the redundant
     * {@code name >= cursor name} gives the index range its lower bound, as in {@link #SELECT_DUE_AFTER}. The name
     * filter is {@code LOWER(name) LIKE LOWER(pattern)}: case-insensitive on both databases the same way, and no index
     * can serve a substring anyway, so the walk in index order filters on the way.
     */
    static String selectByName(boolean filtered, boolean afterCursor) {
        return selectByName(filtered, afterCursor, false);
    }

    /** {@link #selectByName(boolean, boolean)}, with the namespace (its parameter first) if {@code inNamespace}. */
    static String selectByName(boolean filtered, boolean afterCursor, boolean inNamespace) {
        List<String> conditions = new ArrayList<>();
        if (inNamespace) {
            conditions.add(IN_NAMESPACE);
        }
        if (filtered) {
            conditions.add("LOWER(name) LIKE LOWER(?) ESCAPE '" + LIKE_ESCAPE + "'");
        }
        if (afterCursor) {
            conditions.add("name >= ? AND (name > ? OR (name = ? AND id > ?))");
        }
        return "SELECT " + COLUMNS + " FROM tw_job"
                + (conditions.isEmpty() ? "" : " WHERE " + String.join(" AND ", conditions))
                + " ORDER BY name, id LIMIT ?";
    }

    /**
     * The jobs of one namespace (parameter: its name). Every stored job has its namespace row (schema 18 wrote them
     * for the jobs it found).
     */
    static final String IN_NAMESPACE = "id IN (SELECT job_id FROM tw_job_namespace WHERE namespace = ?)";

    /** Parameters: ids (a BIGINT array). */
    static final String SELECT_EXISTING_IDS = "SELECT id FROM tw_job WHERE id = ANY(?)";

    /** The key of {@code tw_job_due_idx}, the order of the due-job walks ({@link #SELECT_DUE_FIRST}). */
    private static final String DUE_ORDER = "enabled, next_trigger_time_ms, id";

    /**
     * Parameters: until, shards (an INTEGER array), limit. The first page of due jobs of some shards;
     * {@code enabled = TRUE} first so that the (enabled, next_trigger_time_ms, id) index serves both the filter and
     * the order, the shard filtered on the way (a pass reads each due job once, whatever share of shards it asks for).
     * The {@code ORDER BY} names the index's whole key, the equality-bound {@code enabled} included: the same order
     * under the equality, and PostgreSQL sees that; H2 2.3 walks the index in order and stops at the limit only when
     * the {@code ORDER BY} starts with the index's first column, and otherwise reads every due job and sorts them on
     * each page (a pass over 100 000 due jobs read 5 million rows and took most of the loader's time).
     */
    static final String SELECT_DUE_FIRST = "SELECT " + COLUMNS + " FROM tw_job"
            + " WHERE enabled = TRUE AND next_trigger_time_ms <= ? AND shard = ANY(?)"
            + " ORDER BY " + DUE_ORDER + " LIMIT ?";

    /**
     * Parameters: until, cursor time, cursor time, cursor time, cursor id, shards (an INTEGER array), limit. Keyset
     * paging: rows strictly after (cursor time, cursor id) in (next_trigger_time_ms, id) order. The redundant
     * {@code >= cursor time} gives the index range a lower bound: without it H2 scanned every earlier entry on each
     * page (quadratic per pass).
     */
    static final String SELECT_DUE_AFTER = "SELECT " + COLUMNS + " FROM tw_job"
            + " WHERE enabled = TRUE AND next_trigger_time_ms <= ? AND next_trigger_time_ms >= ?"
            + " AND (next_trigger_time_ms > ? OR (next_trigger_time_ms = ? AND id > ?)) AND shard = ANY(?)"
            + " ORDER BY " + DUE_ORDER + " LIMIT ?";

    /**
     * Parameters: a bound ({@link #keyIdsFrom}). The smallest key id of a signing secret at or above it: one probe of
     * {@code tw_job_secret_key_idx} per key id in use lists them all ({@link SecretsAtRest}), however many jobs there
     * are. The lower bound also skips the jobs without a secret (NULL), which H2 sorts first.
     */
    static final String SELECT_SECRET_KEY_ID_FROM = "SELECT signing_secret_key_id FROM tw_job"
            + " WHERE signing_secret_key_id >= ? ORDER BY signing_secret_key_id LIMIT 1";

    /**
     * The bound of {@link #SELECT_SECRET_KEY_ID_FROM} that finds the key id after {@code keyId} ({@code ""} for the
     * first): {@code keyId + U+0001}, the least string above it. Not {@code > keyId}: H2 seeks a strict bound on the
     * (key id, id) index to the first entry of that key id and reads every secret under it (scanCount 66 667 over
     * 200 000 jobs), where {@code >=} seeks past them (scanCount 1). Key ids are ASCII letters and digits, so nothing
     * lies between the two strings in any collation.
     */
    static String keyIdsFrom(String keyId) {
        return keyId + '\u0001';
    }

    /**
     * Parameters: key id, after id, limit. A page of the secrets stored under one key id, in id order: a range of
     * {@code tw_job_secret_key_idx} (the {@code ORDER BY} names its whole key, for H2's sake, see
     * {@link #SELECT_DUE_FIRST}).
     */
    static final String SELECT_SECRETS_UNDER_KEY = "SELECT id, signing_secret FROM tw_job"
            + " WHERE signing_secret_key_id = ? AND id > ? ORDER BY signing_secret_key_id, id LIMIT ?";

    /**
     * Parameters: new secret, new key id, id, old key id, old secret. A secret re-encrypted by compare-and-set on the
     * value read: a job changed meanwhile (or re-encrypted by another member) is left alone. The version stays, so
     * a user's update of the job in flight is not refused for it.
     */
    static final String RESEAL_SECRET = "UPDATE tw_job SET signing_secret = ?, signing_secret_key_id = ?"
            + " WHERE id = ? AND signing_secret_key_id = ? AND signing_secret = ?";

    /** No parameters. The jobs with a retention of their own; a scan of the job table, once per retention run. */
    static final String SELECT_RETENTION_OVERRIDES = "SELECT id, retention_days FROM tw_job"
            + " WHERE retention_days IS NOT NULL";
}
