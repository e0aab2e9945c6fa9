package dev.tickwheel.server.cluster;

import com.google.common.base.Ticker;
import java.time.Duration;
import org.slf4j.Logger;

/**
 * Logs an operation that is retried every round while its failure lasts (a lease renewal while the database is down,
 * a bus reconnect) without writing a line per attempt: the first failure of a streak at WARN with its stack trace,
 * then at most one WARN per interval with the count since, and one INFO line when the operation succeeds again.
 *
 * <p>Not thread-safe: confined to the thread that runs the operation.
 */
public final class RepeatedFailureLog {

    private final Logger log;
    private final String operation;
    private final long intervalNanos;
    private final Ticker ticker;

    private long failures;
    private long streakStartNanos;
    private long lastLoggedNanos;
    private long failuresSinceLogged;

    /**
     * @param operation what failed, for the message: {@code "lease renewal"}
     * @param interval  the least time between two WARN lines of one streak
     */
    public RepeatedFailureLog(Logger log, String operation, Duration interval, Ticker ticker) {
        this.log = log;
        this.operation = operation;
        this.intervalNanos = interval.toNanos();
        this.ticker = ticker;
    }

    public void failed(Throwable failure) {
        long nowNanos = ticker.read();
        failures++;
        if (failures == 1) {
            streakStartNanos = nowNanos;
            lastLoggedNanos = nowNanos;
            log.warn("{} failed; retrying", operation, failure);
            return;
        }
        failuresSinceLogged++;
        if (nowNanos - lastLoggedNanos >= intervalNanos) {
            log.warn("{} still failing: {} more failures in {} ms, the last: {}", operation, failuresSinceLogged,
                    (nowNanos - lastLoggedNanos) / 1_000_000, String.valueOf(failure));
            lastLoggedNanos = nowNanos;
            failuresSinceLogged = 0;
        }
    }

    public void succeeded() {
        if (failures > 0) {
            log.info("{} works again after {} failures over {} ms", operation, failures,
                    (ticker.read() - streakStartNanos) / 1_000_000);
            failures = 0;
            failuresSinceLogged = 0;
        }
    }
}
