package dev.tickwheel.client.model;

import java.time.Instant;

/**
 * A page of {@code GET /api/instances}: instances newest first, every filter optional and combined.
 *
 * <p>Immutable. Start from {@link #all()}.
 *
 * @param jobId  only this job's instances, or null
 * @param key    only the instance this caller key names (needs {@code jobId}), or null
 * @param status only instances in this status, or null
 * @param from   only instances created at or after this instant, or null
 * @param to     only instances created before this instant, or null
 * @param namespace only this namespace's instances (for a token of every namespace), or null for every one the
 *               token sees
 * @param limit  1..1000 a page, or null for the server's 100
 * @param cursor a previous page's {@link Page#nextCursor()}, or null for the first page
 */
public record InstanceQuery(Long jobId, String key, InstanceStatus status, Instant from, Instant to,
                            String namespace, Integer limit, String cursor) {

    public InstanceQuery {
        if (key != null && jobId == null) {
            throw new IllegalArgumentException("a key filter needs a jobId (keys are unique per job): key '" + key
                    + "'");
        }
        if (status == InstanceStatus.UNKNOWN) {
            throw new IllegalArgumentException("status must be a value the server knows, got UNKNOWN");
        }
        if (limit != null && limit < 1) {
            throw new IllegalArgumentException("limit must be positive: " + limit);
        }
    }

    /** Every instance, the first page. */
    public static InstanceQuery all() {
        return new InstanceQuery(null, null, null, null, null, null, null, null);
    }

    public InstanceQuery job(long jobId) {
        return new InstanceQuery(jobId, key, status, from, to, namespace, limit, cursor);
    }

    /** Only the instance {@code key} names among the job's ({@link #job} first). */
    public InstanceQuery key(String key) {
        return new InstanceQuery(jobId, key, status, from, to, namespace, limit, cursor);
    }

    public InstanceQuery status(InstanceStatus status) {
        return new InstanceQuery(jobId, key, status, from, to, namespace, limit, cursor);
    }

    /** Created at or after {@code from} (inclusive) and before {@code to} (exclusive); either may be null. */
    public InstanceQuery created(Instant from, Instant to) {
        return new InstanceQuery(jobId, key, status, from, to, namespace, limit, cursor);
    }

    /** Only {@code namespace}'s instances; a token of one namespace sees its own only, and naming another is a 404. */
    public InstanceQuery namespace(String namespace) {
        return new InstanceQuery(jobId, key, status, from, to, namespace, limit, cursor);
    }

    public InstanceQuery limit(int limit) {
        return new InstanceQuery(jobId, key, status, from, to, namespace, limit, cursor);
    }

    /** The page after the one whose {@link Page#nextCursor()} is {@code cursor}. */
    public InstanceQuery after(String cursor) {
        return new InstanceQuery(jobId, key, status, from, to, namespace, limit, cursor);
    }
}
