package dev.tickwheel.server;

import dev.tickwheel.concurrent.GroupCommit;
import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.access.AuditEntry;
import dev.tickwheel.server.access.AuditFilter;
import dev.tickwheel.server.store.AuditStore;
import dev.tickwheel.server.store.Page;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * The audit trail: every change through the API or the console, who made it (a token's name), what and to what.
 *
 * <p>{@link #record} returns once the entry is committed: an API call answers after its entry is stored, so a change
 * that was answered is in the trail. A refused call's entry is written by {@link #recordLater}, not waited for. Entries of concurrent calls are written together (a group commit on two
 * threads, {@code tickwheel-audit-commit-n}), so auditing costs a call about one commit's wait, not one transaction of
 * its own each. {@link #purge} deletes entries past the retention ({@link #DEFAULT_RETENTION}, 365 days).
 *
 * <p>Thread-safe. Lifecycle: closed by the engine.
 */
public final class AuditService implements AutoCloseable {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(AuditService.class);

    public static final Duration DEFAULT_RETENTION = Duration.ofDays(365);
    private static final int COMMIT_WRITERS = 2;
    private static final int MAX_BATCH = 500;
    private static final int PURGE_BATCH = 1_000;

    private final AuditStore store;
    private final SnowflakeIdGenerator ids;
    private final Clock clock;
    private final Duration storeTimeout;
    private final Duration retention;
    private final GroupCommit<AuditEntry, Boolean> commits;

    AuditService(AuditStore store, SnowflakeIdGenerator ids, Clock clock, Duration storeTimeout, Duration retention) {
        this.store = Objects.requireNonNull(store, "store");
        this.ids = Objects.requireNonNull(ids, "ids");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.storeTimeout = Objects.requireNonNull(storeTimeout, "storeTimeout");
        this.retention = Objects.requireNonNull(retention, "retention");
        this.commits = new GroupCommit<>("audit-commit", COMMIT_WRITERS, MAX_BATCH, entries -> {
            store.append(entries);
            return Collections.nCopies(entries.size(), Boolean.TRUE);
        });
    }

    /**
     * Stores one entry, now; returns once it is committed.
     *
     * @throws dev.tickwheel.server.store.StoreException if it was not committed within the store timeout
     */
    public AuditEntry record(String actor, String namespace, String action, String target, int status,
                             String changes) {
        Instant now = Instant.ofEpochMilli(clock.millis());
        AuditEntry entry = new AuditEntry(ids.nextId(), now, actor, namespace, action, target, status, changes);
        Committed.await(commits.submit(entry), "audit entry", storeTimeout);
        return entry;
    }

    /**
     * Stores one entry, now, without waiting for its commit: for a refused call, whose answer must not wait on the
     * store a second time (a call refused for a store outage would otherwise answer after two store timeouts). A
     * failure to store it is logged with the entry.
     */
    public void recordLater(String actor, String namespace, String action, String target, int status,
                            String changes) {
        AuditEntry entry = new AuditEntry(ids.nextId(), Instant.ofEpochMilli(clock.millis()), actor, namespace, action,
                target, status, changes);
        commits.submit(entry).whenComplete((stored, failure) -> {
            if (failure != null) {
                log.error("audit entry not stored ({}): {}", failure.toString(), entry);
            }
        });
    }

    /** A page of entries newest first; {@code beforeId}: the previous page's cursor, or null. */
    public Page<AuditEntry, Long> list(AuditFilter filter, Long beforeId, int limit) {
        return store.list(filter, beforeId == null ? Long.MAX_VALUE : beforeId, limit);
    }

    /** How long entries are kept. */
    public Duration retention() {
        return retention;
    }

    /** Deletes the entries older than the retention, in batches; returns how many. */
    public long purge() {
        Instant before = Instant.ofEpochMilli(clock.millis()).minus(retention);
        long deleted = 0;
        int batch;
        do {
            batch = store.purgeBefore(before, PURGE_BATCH);
            deleted += batch;
        } while (batch == PURGE_BATCH);
        return deleted;
    }

    @Override
    public void close() {
        commits.close();
    }
}
