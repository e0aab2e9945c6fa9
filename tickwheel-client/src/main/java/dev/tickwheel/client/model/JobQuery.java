package dev.tickwheel.client.model;

/**
 * A page of {@code GET /api/jobs}: jobs by name then ID, optionally those whose name contains a text (ignoring case).
 *
 * <p>Immutable. Start from {@link #all()}.
 *
 * @param nameContains a plain substring, or null for every job
 * @param namespace    only this namespace's jobs (for a token of every namespace), or null for every one the token
 *                     sees
 * @param limit        1..1000 a page, or null for the server's 100
 * @param cursor       a previous page's {@link Page#nextCursor()}, or null for the first page
 */
public record JobQuery(String nameContains, String namespace, Integer limit, String cursor) {

    public JobQuery {
        if (limit != null && limit < 1) {
            throw new IllegalArgumentException("limit must be positive: " + limit);
        }
    }

    /** Every job, the first page. */
    public static JobQuery all() {
        return new JobQuery(null, null, null, null);
    }

    public JobQuery nameContains(String text) {
        return new JobQuery(text, namespace, limit, cursor);
    }

    /** Only {@code namespace}'s jobs; a token of one namespace sees its own only, and naming another is a 404. */
    public JobQuery namespace(String namespace) {
        return new JobQuery(nameContains, namespace, limit, cursor);
    }

    public JobQuery limit(int limit) {
        return new JobQuery(nameContains, namespace, limit, cursor);
    }

    /** The page after the one whose {@link Page#nextCursor()} is {@code cursor}. */
    public JobQuery after(String cursor) {
        return new JobQuery(nameContains, namespace, limit, cursor);
    }
}
