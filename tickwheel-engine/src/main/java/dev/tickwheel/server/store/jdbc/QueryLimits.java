package dev.tickwheel.server.store.jdbc;

/**
 * Bounds on page sizes, so that one call cannot pull a whole table into memory.
 *
 * <p>Stateless; thread-safe.
 */
final class QueryLimits {

    /** Largest page any listing returns. */
    static final int MAX_PAGE_SIZE = 10_000;

    private QueryLimits() {
    }

    static int checkPageSize(int limit) {
        if (limit < 1 || limit > MAX_PAGE_SIZE) {
            throw new IllegalArgumentException("limit must be between 1 and " + MAX_PAGE_SIZE + ": " + limit);
        }
        return limit;
    }
}
