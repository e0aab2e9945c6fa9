package dev.tickwheel.bench.webhook;

import dev.tickwheel.concurrent.NamedThreadFactory;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntSupplier;

/**
 * Watches the claim-only-what-can-be-called rule while a benchmark runs: every {@code periodMs} it reads the
 * server's calls in flight, counts the store's DISPATCHING rows ({@code SELECT count(*) FROM tw_instance WHERE
 * status = 'DISPATCHING'}, on its own connection) and reads the calls in flight again. The rule says a sample's
 * count is at most the calls in flight plus one claim batch; {@link #maxExcess()} is the largest count minus the
 * larger of the two in-flight readings around it.
 *
 * <p>Thread-safe: one sampling thread ({@code tickwheel-sampler-1}) writes; the maxima are volatile so that the main
 * thread may read them while it runs, and exact after {@link #close()}.
 *
 * <p>Caveats: the count is a snapshot at some moment between the two in-flight readings; the bound uses the larger
 * of them, so a peak of calls in flight that comes and goes between the readings is not seen.
 */
public final class DispatchSampler implements AutoCloseable {

    private static final String COUNT_DISPATCHING = "SELECT count(*) FROM tw_instance WHERE status = 'DISPATCHING'";

    private final String jdbcUrl;
    private final IntSupplier callsInFlight;
    private final long periodNanos;
    private final Thread thread;
    // Written by the sampling thread only; volatile so that a reader on another thread sees recent values.
    private volatile int samples;
    private volatile int maxDispatching;
    private volatile int maxInFlight;
    private volatile int maxExcess = Integer.MIN_VALUE;
    private volatile String failure;
    // Set by close(): the sampling thread stops after its current sample.
    private volatile boolean stopping;

    /**
     * Starts sampling.
     *
     * @param jdbcUrl       the server's store
     * @param callsInFlight the server's calls in flight, e.g. {@code server::callsInFlight}
     */
    public DispatchSampler(String jdbcUrl, IntSupplier callsInFlight, long periodMs) {
        if (periodMs < 1) {
            throw new IllegalArgumentException("periodMs must be at least 1: " + periodMs);
        }
        this.jdbcUrl = jdbcUrl;
        this.callsInFlight = callsInFlight;
        this.periodNanos = TimeUnit.MILLISECONDS.toNanos(periodMs);
        this.thread = new NamedThreadFactory("sampler", true).newThread(this::run);
        thread.start();
    }

    private void run() {
        try (Connection connection = DriverManager.getConnection(jdbcUrl);
                PreparedStatement count = connection.prepareStatement(COUNT_DISPATCHING)) {
            long nextNanos = System.nanoTime();
            while (!stopping) {
                sample(count);
                nextNanos += periodNanos;
                LockSupport.parkNanos(nextNanos - System.nanoTime());
            }
        } catch (SQLException | RuntimeException e) {
            failure = e.toString();
        }
    }

    private void sample(PreparedStatement count) throws SQLException {
        int before = callsInFlight.getAsInt();
        int dispatching;
        try (ResultSet rs = count.executeQuery()) {
            rs.next();
            dispatching = rs.getInt(1);
        }
        int after = callsInFlight.getAsInt();
        int inFlight = Math.max(before, after);
        samples = samples + 1;
        maxDispatching = Math.max(maxDispatching, dispatching);
        maxInFlight = Math.max(maxInFlight, inFlight);
        maxExcess = Math.max(maxExcess, dispatching - inFlight);
    }

    public int samples() {
        return samples;
    }

    /** The most DISPATCHING rows any sample counted. */
    public int maxDispatching() {
        return maxDispatching;
    }

    /** The most calls in flight any sample read. */
    public int maxInFlight() {
        return maxInFlight;
    }

    /** The largest DISPATCHING count minus the calls in flight around it; 0 or less when the rule held exactly. */
    public int maxExcess() {
        return samples == 0 ? 0 : maxExcess;
    }

    /** Stops sampling and waits for the thread. */
    @Override
    public void close() {
        stopping = true;
        LockSupport.unpark(thread);
        try {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (failure != null) {
            throw new IllegalStateException("sampling DISPATCHING rows failed after " + samples + " samples: "
                    + failure);
        }
    }
}
