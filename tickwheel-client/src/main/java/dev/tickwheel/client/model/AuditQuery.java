package dev.tickwheel.client.model;

import java.time.Instant;

/**
 * A page of {@code GET /api/audit}: entries newest first, every filter optional and combined.
 *
 * <p>Immutable. Start from {@link #all()}.
 *
 * @param actor     only this token's entries (its name), or null
 * @param namespace only entries of this namespace, or null (a token of one namespace sees only its own)
 * @param action    only entries whose action contains this text ({@code /run}), or null
 * @param target    only entries on this target ({@code job 123}), or null
 * @param from      only entries at or after this instant, or null
 * @param to        only entries before this instant, or null
 * @param limit     1..1000 a page, or null for the server's 100
 * @param cursor    a previous page's {@link Page#nextCursor()}, or null for the first page
 */
public record AuditQuery(String actor, String namespace, String action, String target, Instant from, Instant to,
                         Integer limit, String cursor) {

    public AuditQuery {
        if (limit != null && limit < 1) {
            throw new IllegalArgumentException("limit must be positive: " + limit);
        }
    }

    /** Every entry, the first page. */
    public static AuditQuery all() {
        return new AuditQuery(null, null, null, null, null, null, null, null);
    }

    public AuditQuery actor(String actor) {
        return new AuditQuery(actor, namespace, action, target, from, to, limit, cursor);
    }

    public AuditQuery namespace(String namespace) {
        return new AuditQuery(actor, namespace, action, target, from, to, limit, cursor);
    }

    public AuditQuery action(String action) {
        return new AuditQuery(actor, namespace, action, target, from, to, limit, cursor);
    }

    public AuditQuery target(String target) {
        return new AuditQuery(actor, namespace, action, target, from, to, limit, cursor);
    }

    /** Made at or after {@code from} (inclusive) and before {@code to} (exclusive); either may be null. */
    public AuditQuery between(Instant from, Instant to) {
        return new AuditQuery(actor, namespace, action, target, from, to, limit, cursor);
    }

    public AuditQuery limit(int limit) {
        return new AuditQuery(actor, namespace, action, target, from, to, limit, cursor);
    }

    /** The page after the one whose {@link Page#nextCursor()} is {@code cursor}. */
    public AuditQuery after(String cursor) {
        return new AuditQuery(actor, namespace, action, target, from, to, limit, cursor);
    }
}
