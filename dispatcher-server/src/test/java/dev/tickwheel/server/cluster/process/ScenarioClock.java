package dev.tickwheel.server.cluster.process;

import dev.tickwheel.server.Await;
import java.time.Duration;

/**
 * The time line of a fault-injection scenario: "at +8 s kill A, at +20 s pause B". {@link #awaitOffset} waits for a
 * point of the time line (returning at once if it has passed, e.g. because a restart took long), so the faults land
 * at planned moments of the load rather than after arbitrary sleeps. Monotonic ({@link System#nanoTime}).
 *
 * <p>Immutable.
 */
final class ScenarioClock {

    private final long startNanos;

    private ScenarioClock(long startNanos) {
        this.startNanos = startNanos;
    }

    static ScenarioClock startNow() {
        return new ScenarioClock(System.nanoTime());
    }

    /** Waits until {@code offset} after the start; returns at once if that has passed. */
    void awaitOffset(Duration offset) {
        Await.until(() -> "scenario time +" + offset.toMillis() + " ms", offset.plusSeconds(1),
                () -> System.nanoTime() - startNanos >= offset.toNanos());
    }

    Duration elapsed() {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }

    /** E.g. {@code +8.012 s}, for reports. */
    String now() {
        return String.format("+%.3f s", elapsed().toNanos() / 1e9);
    }
}
