package dev.tickwheel.bench.api;

/**
 * One request of a load phase: an HTTP call or a JDBC transaction, made by one of {@link LoadLoop}'s workers, which
 * times it.
 *
 * <p>Implementations are called by every worker at once, each with its own worker index; they must be thread-safe
 * (state per worker may be kept by that index).
 */
@FunctionalInterface
interface LoadOperation {

    /**
     * Makes one request and says how it went. An exception counts as an error named by its class.
     *
     * @param worker the calling worker, 0 ≤ worker &lt; the phase's concurrency
     */
    Outcome call(int worker) throws Exception;

    /**
     * How one request went.
     *
     * <p>Immutable.
     *
     * @param kind   success, error, or nothing left to do
     * @param items  SUCCESS: what it did (1 for a single call; the runs created, ids cancelled or rows written)
     * @param error  ERROR: what went wrong, short (an HTTP status, a SQLSTATE), the key errors are counted by
     * @param detail ERROR: the answer's body or the exception's message, for the report's first example
     */
    record Outcome(Kind kind, int items, String error, String detail) {

        private static final Outcome EXHAUSTED = new Outcome(Kind.EXHAUSTED, 0, null, null);
        private static final Outcome ONE = new Outcome(Kind.SUCCESS, 1, null, null);

        /** What became of a request. */
        enum Kind {
            SUCCESS, ERROR,
            /** Nothing was sent: the phase's supply (ids or keys to cancel) has run out. */
            EXHAUSTED
        }

        static Outcome success(int items) {
            return items == 1 ? ONE : new Outcome(Kind.SUCCESS, items, null, null);
        }

        static Outcome error(String error, String detail) {
            return new Outcome(Kind.ERROR, 0, error, detail);
        }

        static Outcome exhausted() {
            return EXHAUSTED;
        }
    }
}
