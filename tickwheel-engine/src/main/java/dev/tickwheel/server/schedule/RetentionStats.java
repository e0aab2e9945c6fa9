package dev.tickwheel.server.schedule;

/**
 * The retention purge's counters at one moment, for metrics ({@link RetentionPurge#stats()}).
 *
 * <p>Immutable snapshot; the counters grow from 0 at the purge's construction.
 *
 * @param purged          instances deleted
 * @param caughtUpRuns    runs that reached the end of every pass: nothing left to delete until time moves on
 * @param budgetSpentRuns runs that stopped at their batch budget with more to look at (the next run goes on from
 *                        there); many in a row mean the purge falls behind: raise the batch size or run it more often
 * @param failedRuns      runs that ended in a failure (the database unreachable), logged
 * @param totalNanos      time spent in runs, failed ones included
 */
public record RetentionStats(long purged, long caughtUpRuns, long budgetSpentRuns, long failedRuns, long totalNanos) {

    /** Runs that ended with {@code outcome}. */
    public long runs(RetentionPurge.Outcome outcome) {
        return switch (outcome) {
            case CAUGHT_UP -> caughtUpRuns;
            case BUDGET_SPENT -> budgetSpentRuns;
            case FAILED -> failedRuns;
        };
    }

    /** Runs in all. */
    public long runs() {
        return caughtUpRuns + budgetSpentRuns + failedRuns;
    }
}
