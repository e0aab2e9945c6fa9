package dev.tickwheel.bench.peer;

import io.netty.util.Timeout;

/**
 * A task that does nothing and is at once a {@link Runnable}, a Netty {@code TimerTask} and a PowerJob
 * {@code TimerTask}, so that a benchmark sharing one task among many timers charges no adapter object per timer to
 * Netty or PowerJob (their users implement the peer's task interface directly).
 *
 * <p>Immutable.
 */
public final class NoopTask implements Runnable, io.netty.util.TimerTask,
        tech.powerjob.server.common.timewheel.TimerTask {

    public static final NoopTask INSTANCE = new NoopTask();

    private NoopTask() {
    }

    @Override
    public void run() {
    }

    @Override
    public void run(Timeout timeout) {
    }
}
