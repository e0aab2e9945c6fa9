package dev.tickwheel.server.store;

import java.time.Instant;

/**
 * Where a walk over waiting instances in due order stands: after the instance due at {@code dueMs} with id
 * {@code id}. Pages of {@link InstanceStore#findWaiting} are ordered by (due time, id), so a walk sees every row once
 * even when many share a due time.
 *
 * <p>Immutable.
 *
 * @param dueMs the due time (epoch milliseconds) of the last instance seen
 * @param id    its id
 */
public record WaitingCursor(long dueMs, long id) {

    /** Before every instance. */
    public static final WaitingCursor FIRST = new WaitingCursor(Long.MIN_VALUE, Long.MIN_VALUE);

    /** After every instance due at or before {@code dueMs}. */
    public static WaitingCursor dueAfter(long dueMs) {
        return new WaitingCursor(dueMs, Long.MAX_VALUE);
    }

    /** After {@code instanceId}, due at {@code due}. */
    public static WaitingCursor after(Instant due, long instanceId) {
        return new WaitingCursor(due.toEpochMilli(), instanceId);
    }
}
