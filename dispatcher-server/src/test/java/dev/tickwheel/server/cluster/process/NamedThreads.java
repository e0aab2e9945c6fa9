package dev.tickwheel.server.cluster.process;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Thread factories for the fixtures' own threads: daemon threads named {@code <role>-<n>}, so a fixture that a failed
 * test did not close never keeps the test JVM alive, and a thread dump says whose thread is whose.
 *
 * <p>Thread-safe (each factory counts with an atomic).
 */
final class NamedThreads {

    private NamedThreads() {
    }

    static ThreadFactory daemon(String role) {
        AtomicInteger count = new AtomicInteger(); // factories are called from whichever thread grows the pool
        return runnable -> {
            Thread thread = new Thread(runnable, role + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
