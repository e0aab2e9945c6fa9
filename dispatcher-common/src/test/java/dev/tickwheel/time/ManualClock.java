package dev.tickwheel.time;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;

/**
 * A {@link Clock} that moves only when a test moves it, forwards or backwards. Shipped in the test jar for
 * the server module's tests.
 *
 * <p>Thread-safe: the instant is volatile so that a test thread's {@link #set} is seen by the code under test.
 */
public final class ManualClock extends Clock {

    /** Written by the test thread, read by the code under test on any thread. */
    private volatile Instant now;
    private final ZoneId zone;

    /** A clock at {@code start} in UTC. */
    public ManualClock(Instant start) {
        this(start, ZoneOffset.UTC);
    }

    /** A clock at {@code start} in {@code zone}. */
    public ManualClock(Instant start, ZoneId zone) {
        this.now = Objects.requireNonNull(start, "start");
        this.zone = Objects.requireNonNull(zone, "zone");
    }

    /** Moves the clock to {@code instant}, which may be before the current one. */
    public void set(Instant instant) {
        this.now = Objects.requireNonNull(instant, "instant");
    }

    /** Moves the clock by {@code amount}, which may be negative. */
    public synchronized void advance(Duration amount) {
        // synchronized: read-modify-write of now; set() alone needs no lock.
        this.now = now.plus(amount);
    }

    @Override
    public Instant instant() {
        return now;
    }

    @Override
    public ZoneId getZone() {
        return zone;
    }

    @Override
    public Clock withZone(ZoneId newZone) {
        return new ManualClock(now, newZone);
    }
}
