package dev.tickwheel.server.wheel;

import dev.tickwheel.timer.WheelTimeout;

/**
 * The single handle of one pending instance: its timer node in whichever wheel holds it, its CARGO entry (the index
 * chains the nodes themselves through {@link #chainNext}, keyed by {@link #uniqueId()}), and the
 * {@link dev.tickwheel.timer.TimerFuture} the caller gets back. It moves from the coarse to the precise wheel without
 * being copied.
 *
 * <p>Thread-safe (see {@link WheelTimeout}).
 */
final class InstanceTimeout extends WheelTimeout {

    private final long uniqueId;
    private final PendingInstanceIndex index;
    // The next node in this node's CARGO bucket; guarded by the index stripe's monitor.
    InstanceTimeout chainNext;

    InstanceTimeout(long uniqueId, Runnable task, PendingInstanceIndex index) {
        super(task);
        this.uniqueId = uniqueId;
        this.index = index;
    }

    long uniqueId() {
        return uniqueId;
    }

    @Override
    protected void onStart() {
        index.remove(this);
    }

    @Override
    protected void onCancel() {
        // The entry stays until the wheel lets go of the node (onDropped): a cancel only counts it as gone, so it
        // costs no lock and no unlink. See PendingInstanceIndex.
        index.cancelled(this);
    }

    @Override
    protected void onDropped() {
        index.remove(this);
    }

    @Override
    public String toString() {
        return "Instance " + uniqueId + " " + super.toString();
    }
}
