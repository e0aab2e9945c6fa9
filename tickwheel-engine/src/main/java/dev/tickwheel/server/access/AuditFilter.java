package dev.tickwheel.server.access;

import java.time.Instant;

/**
 * Which audit entries a listing shows; every part optional, combined with AND.
 *
 * <p>Immutable.
 *
 * @param actor     only this token's entries
 * @param namespace only entries of this namespace
 * @param action    only entries whose action contains this text (ignoring case)
 * @param target    only entries of exactly this target
 * @param from      only entries at or after this time
 * @param to        only entries before this time
 */
public record AuditFilter(String actor, String namespace, String action, String target, Instant from, Instant to) {

    /** Every entry. */
    public static final AuditFilter ALL = new AuditFilter(null, null, null, null, null, null);
}
