package dev.tickwheel.client;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The calls in flight and the closed mark, so that closing a client refuses new calls and lets those in flight end as
 * they would: the resources are released once, by {@link #close} if nothing is in flight, else by the last call's
 * {@link #exit}.
 *
 * <pre>
 *   state = 2 × (calls in flight) + (1 if closed)
 *   enter: +2; closed already → undo and refuse     exit: −2; reaching 1 (closed, none in flight) → release
 *   close: set bit 0; was 0 (none in flight)       → release
 * </pre>
 *
 * <p>Thread-safe: one atomic word; the release runs at most once (its own flag).
 */
final class InFlight {

    private static final long CLOSED = 1;
    private static final long ONE_CALL = 2;

    private final AtomicLong state = new AtomicLong(); // the word above; every call changes it twice
    private final AtomicBoolean released = new AtomicBoolean(); // set by whoever releases first
    private final Runnable release;

    InFlight(Runnable release) {
        this.release = release;
    }

    /** Counts a call in; false (and nothing counted) if closed. */
    boolean enter() {
        if ((state.addAndGet(ONE_CALL) & CLOSED) != 0) {
            exit();
            return false;
        }
        return true;
    }

    /** Counts a call out; releases if it was the last one after a close. */
    void exit() {
        if (state.addAndGet(-ONE_CALL) == CLOSED) {
            releaseOnce();
        }
    }

    /** Marks closed; releases at once if nothing is in flight. Idempotent. */
    void close() {
        if (state.getAndUpdate(s -> s | CLOSED) == 0) {
            releaseOnce();
        }
    }

    private void releaseOnce() {
        if (released.compareAndSet(false, true)) {
            release.run();
        }
    }
}
