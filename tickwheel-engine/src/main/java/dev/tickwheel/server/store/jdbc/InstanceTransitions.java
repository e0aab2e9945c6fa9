package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.instance.CancelOutcome;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.instance.InstanceTransition;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Instant;
import java.util.Objects;

/**
 * The instance status changes, each one compare-and-set statement in auto-commit mode: the row changes only if its
 * status is still the transition's {@link InstanceTransition#from()}, so of any number of racing callers at most
 * one succeeds, on any number of nodes. A retry also records the attempt it ends, in the same transaction (the one
 * change that is two statements). Statuses are bound from {@link InstanceTransition}, the one table of legal
 * moves. The settles of a claimed row (fail, interrupt, retry, release) are fenced by the claim's epoch in the same
 * statement ({@link InstanceSql#CLAIM_EPOCH_HELD}); cancel and skip, which move only WAITING rows, are not.
 *
 * <p>Thread-safe: every call runs on its own pooled connection.
 *
 * Batched claims and successes are in {@link BatchTransitions}.
 *
 * <p>Caveats: errors longer than {@link #MAX_ERROR_LENGTH} characters are truncated.
 */
final class InstanceTransitions {

    /** Ids per batched claim statement ({@link BatchTransitions}): keeps arrays and row locks of one statement small. */
    static final int CLAIM_CHUNK = 1_000;

    /** Longest error text stored; a stack trace is cut here. */
    static final int MAX_ERROR_LENGTH = 8_000;

    /** Cancel attempts when the instance keeps coming back to WAITING (retries) between the CAS and the read. */
    private static final int CANCEL_ATTEMPTS = 3;

    private final TransactionRunner runner;
    private final Clock clock;
    private final Fence.Binder claimEpochHeld;

    InstanceTransitions(TransactionRunner runner, Clock clock, Fence fence) {
        this.runner = runner;
        this.clock = clock;
        this.claimEpochHeld = fence.claimEpochHeld();
    }

    boolean markFailed(long instanceId, String error) {
        return finish(InstanceTransition.FAIL, InstanceSql.FINISH, instanceId, error, claimEpochHeld);
    }

    boolean markInterrupted(long instanceId, String reason) {
        return finish(InstanceTransition.INTERRUPT, InstanceSql.FINISH, instanceId, reason, claimEpochHeld);
    }

    /** WAITING → CANCELLED with a reason: the same statement shape as a finish (status, error, updated at). */
    boolean skip(long instanceId, String reason) {
        return finish(InstanceTransition.SKIP, InstanceSql.SKIP, instanceId, reason, Fence.NONE);
    }

    boolean release(long instanceId) {
        return move(InstanceTransition.RELEASE, InstanceSql.RELEASE, instanceId, claimEpochHeld);
    }

    private boolean finish(InstanceTransition t, String statement, long instanceId, String error,
                           Fence.Binder fence) {
        long nowMs = clock.millis();
        return runner.autoCommit(t + " instance " + instanceId, connection -> {
            try (PreparedStatement ps = connection.prepareStatement(statement)) {
                TransitionBinding.finish(ps, t, truncate(error), nowMs, TransitionBinding.id(instanceId), fence);
                return ps.executeUpdate() == 1;
            }
        });
    }

    /**
     * The failed attempt recorded ({@link InstanceSql#RECORD_RETRIED_ATTEMPT}), then the compare-and-set, in one
     * transaction. The record goes first because it copies the attempt's due time, which the retry moves; it runs
     * under the retry's own conditions, so when it inserts nothing the retry would change nothing and is not sent. If
     * the row moved between the two statements (a takeover's release), the compare-and-set changes nothing and the
     * record is rolled back with it: an attempt is recorded exactly when its retry is.
     */
    boolean retry(long instanceId, Instant nextTriggerTime, String error) {
        Objects.requireNonNull(nextTriggerTime, "nextTriggerTime");
        long nowMs = clock.millis();
        String storedError = truncate(error);
        return runner.inTransaction("retry instance " + instanceId, connection -> {
            try (PreparedStatement record = connection.prepareStatement(InstanceSql.RECORD_RETRIED_ATTEMPT)) {
                record.setLong(1, nowMs);
                JdbcValues.setString(record, 2, storedError);
                record.setLong(3, instanceId);
                record.setString(4, InstanceTransition.RETRY.from().name());
                claimEpochHeld.bind(record, 5);
                if (record.executeUpdate() == 0) {
                    return false;
                }
            }
            try (PreparedStatement ps = connection.prepareStatement(InstanceSql.RETRY)) {
                TransitionBinding.retry(ps, nextTriggerTime.toEpochMilli(), storedError, nowMs, instanceId,
                        claimEpochHeld);
                if (ps.executeUpdate() == 1) {
                    return true;
                }
            }
            connection.rollback();
            return false;
        });
    }

    /** A transition whose statement takes (to, updated at, id, from), then the fence. */
    private boolean move(InstanceTransition t, String statement, long instanceId, Fence.Binder fence) {
        long nowMs = clock.millis();
        return runner.autoCommit(t + " instance " + instanceId, connection -> {
            try (PreparedStatement ps = connection.prepareStatement(statement)) {
                TransitionBinding.move(ps, t, nowMs, TransitionBinding.id(instanceId), fence);
                return ps.executeUpdate() == 1;
            }
        });
    }

    /** {@code error} cut to {@link #MAX_ERROR_LENGTH} characters. */
    static String truncate(String error) {
        return error == null || error.length() <= MAX_ERROR_LENGTH ? error : error.substring(0, MAX_ERROR_LENGTH);
    }
}
