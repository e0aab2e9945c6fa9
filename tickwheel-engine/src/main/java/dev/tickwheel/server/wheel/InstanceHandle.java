package dev.tickwheel.server.wheel;

import dev.tickwheel.timer.TimerFuture;

/**
 * The handle of one pending instance, made on demand by {@code InstanceTimeWheelService.fetchTimerFuture}: its slot
 * and the slot's generation. While the slot holds that generation, the handle reads the slot's state; when the slot is
 * released, the slab tells the handle how the instance ended ({@link #ended}), before the slot can be taken again, so
 * the handle keeps answering after the slot is reused.
 *
 * <p>Thread-safe: the end state is volatile and written once, by the releasing thread under the stripe's lock; a reader
 * that sees the slot in another generation reads the end state after that (the release happened before the slot was
 * taken again).
 */
final class InstanceHandle implements TimerFuture {

    private final InstanceSlab slab;
    private final InstanceSlab.CancelListener listener;
    private final int slot;
    private final long generation;
    private final long uniqueId;
    private final long deadlineNanos;
    private final Runnable task;
    // InstanceSlab.STARTED or CANCELLED once the slot was released; -1 before.
    private volatile int ended = -1;

    InstanceHandle(InstanceSlab slab, InstanceSlab.CancelListener listener, int slot, long generation, long uniqueId,
                   long deadlineNanos, Runnable task) {
        this.slab = slab;
        this.listener = listener;
        this.slot = slot;
        this.generation = generation;
        this.uniqueId = uniqueId;
        this.deadlineNanos = deadlineNanos;
        this.task = task;
    }

    void ended(int state) {
        ended = state;
    }

    private int state() {
        int end = ended;
        if (end >= 0) {
            return end;
        }
        long ctl = slab.ctl(slot);
        if (InstanceSlab.generation(ctl) == generation) {
            return InstanceSlab.state(ctl);
        }
        return ended; // released and taken again: the release told this handle first
    }

    @Override
    public Runnable task() {
        return task;
    }

    @Override
    public long deadlineNanos() {
        return deadlineNanos;
    }

    @Override
    public boolean cancel() {
        long replaced = slab.cancelSlot(slot, generation);
        if (replaced < 0) {
            return false;
        }
        listener.cancelled(replaced);
        return true;
    }

    @Override
    public boolean isCancelled() {
        return state() == InstanceSlab.CANCELLED;
    }

    @Override
    public boolean isStarted() {
        return state() == InstanceSlab.STARTED;
    }

    @Override
    public String toString() {
        String s = switch (state()) {
            case InstanceSlab.WAITING -> "waiting";
            case InstanceSlab.STARTED -> "started";
            default -> "cancelled";
        };
        return "Instance " + uniqueId + " [" + s + ", deadlineNanos=" + deadlineNanos + ", task=" + task + "]";
    }
}
