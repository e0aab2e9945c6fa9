package dev.tickwheel.timer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * One scheduled task, and at the same time its node in the wheel: a bucket is an intrusive, circular, doubly-linked
 * list of these, so linking and unlinking are O(1) and a pending timer costs one object.
 *
 * <p>The class is open for extension so that a service can attach its own key to the node instead of allocating a
 * second object per task (see {@code InstanceTimeWheelService}); subclasses react to the two state changes through
 * {@link #onStart()} and {@link #onCancel()}.
 *
 * <p>Thread-safety: the state changes by compare-and-set and is safe from any thread. {@link #owner} is volatile
 * because a cancelling thread reads it while a staging timer may be moving the node to another timer. {@link #prev}
 * and {@link #next} are confined to the worker thread of the owning timer; ownership moves only through that timer's
 * hand-off queue, which publishes them.
 */
public class WheelTimeout implements TimerFuture, Runnable {

    static final int WAITING = 0;
    static final int STARTED = 1;
    static final int CANCELLED = 2;

    private static final VarHandle STATE;
    private static final VarHandle OWNER;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(WheelTimeout.class, "state", int.class);
            OWNER = MethodHandles.lookup().findVarHandle(WheelTimeout.class, "owner", HashedWheelTimer.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Runnable task;
    // Written once by the scheduling call before the node is published through the owner's queue.
    long deadlineNanos;
    // volatile: changes state by CAS from the worker, executor threads and cancelling threads.
    private volatile int state;
    // volatile: read by cancel() on any thread while a hand-off may move the node to another timer; set from null by
    // CAS in claim(), so that two threads scheduling the same node cannot both succeed.
    volatile HashedWheelTimer owner;
    WheelTimeout prev;
    WheelTimeout next;

    /** Creates a waiting, unscheduled timeout for {@code task}; schedule it with {@link HashedWheelTimer#schedule(WheelTimeout, long)}. */
    protected WheelTimeout(Runnable task) {
        this.task = Objects.requireNonNull(task, "task");
    }

    /** A bucket's sentinel head: no task, never scheduled. */
    WheelTimeout() {
        this.task = null;
        this.prev = this;
        this.next = this;
    }

    @Override
    public final Runnable task() {
        return task;
    }

    @Override
    public final long deadlineNanos() {
        return deadlineNanos;
    }

    @Override
    public final boolean cancel() {
        if (!STATE.compareAndSet(this, WAITING, CANCELLED)) {
            return false;
        }
        onCancel();
        HashedWheelTimer timer = owner;
        if (timer != null) {
            timer.cancelRequested();
        }
        return true;
    }

    @Override
    public final boolean isCancelled() {
        return state == CANCELLED;
    }

    @Override
    public final boolean isStarted() {
        return state == STARTED;
    }

    /**
     * Runs the task if it is still waiting. Safe to call more than once and from any thread: only the call that moves
     * the state from waiting to started runs the task. A task that throws is reported to the owning timer's failure
     * handler; the exception does not propagate.
     */
    @Override
    public final void run() {
        if (!STATE.compareAndSet(this, WAITING, STARTED)) {
            if (isCancelled()) {
                dropped(); // cancelled after it was handed to the executor: this is the last place that holds it
            }
            return;
        }
        try {
            onStart();
            task.run();
        } catch (Throwable t) {
            HashedWheelTimer timer = owner;
            if (timer != null) {
                timer.taskFailed(this, t);
            } else {
                Thread thread = Thread.currentThread();
                thread.getUncaughtExceptionHandler().uncaughtException(thread, t);
            }
        }
    }

    /** Called once, on the thread that won the start, right before the task runs. Must not throw. */
    protected void onStart() {
    }

    /** Called once, on the thread whose {@link #cancel()} won, before the timer is told. Must not throw. */
    protected void onCancel() {
    }

    /**
     * Called when a timer lets go of this cancelled timeout: its worker unlinked it (at its bucket, in a sweep, from its
     * queues), or its run found it cancelled. Usually once; a subclass must tolerate a second call. Must not throw.
     */
    protected void onDropped() {
    }

    /** Tells the subclass that a timer let go of this cancelled timeout ({@link #onDropped()}). */
    final void dropped() {
        onDropped();
    }

    /** Makes {@code timer} the owner of a node that has never been scheduled; false if it has an owner already. */
    final boolean claim(HashedWheelTimer timer) {
        return OWNER.compareAndSet(this, null, timer);
    }

    final boolean isLinked() {
        return next != null;
    }

    final void linkBefore(WheelTimeout head) {
        WheelTimeout tail = head.prev;
        prev = tail;
        next = head;
        tail.next = this;
        head.prev = this;
    }

    final void unlink() {
        prev.next = next;
        next.prev = prev;
        prev = null;
        next = null;
    }

    @Override
    public String toString() {
        String s = switch (state) {
            case WAITING -> "waiting";
            case STARTED -> "started";
            default -> "cancelled";
        };
        return getClass().getSimpleName() + "[" + s + ", deadlineNanos=" + deadlineNanos + ", task=" + task + "]";
    }
}
