package dev.tickwheel.server.store;

import dev.tickwheel.server.access.AuditEntry;
import dev.tickwheel.server.access.AuditFilter;
import java.time.Instant;

/**
 * Durable storage of the audit trail.
 *
 * <p>Every method is one transaction. Thread-safe.
 */
public interface AuditStore {

    /** Appends entries, in one transaction. */
    void append(java.util.List<AuditEntry> entries);

    /**
     * A page of entries newest first.
     *
     * @param beforeId only entries with a smaller id (the previous page's {@link Page#nextCursor()}), or
     *                 {@link Long#MAX_VALUE}
     * @param limit    page size, 1..10 000
     */
    Page<AuditEntry, Long> list(AuditFilter filter, long beforeId, int limit);

    /** Deletes up to {@code limit} entries older than {@code before}; returns how many. */
    int purgeBefore(Instant before, int limit);
}
