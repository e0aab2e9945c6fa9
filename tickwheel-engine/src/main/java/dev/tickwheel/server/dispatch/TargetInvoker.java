package dev.tickwheel.server.dispatch;

import dev.tickwheel.server.job.Job;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Delivers one instance to its job's target, asynchronously.
 *
 * <p>Implementations are thread-safe, return at once (no thread waits for the target on the caller's behalf) and
 * never throw: every failure, a call past its deadline included, completes the future exceptionally with a message
 * worth storing as the instance's error.
 */
public interface TargetInvoker {

    /**
     * Starts the call.
     *
     * @param timeout the whole call's deadline; the future completes (exceptionally) by then at the latest
     * @return completes normally on success, with the attempt's output (JSON text, see
     *         {@link dev.tickwheel.server.instance.InstanceOutput}) or null when it gave none
     */
    CompletableFuture<String> invoke(Job job, JobContext context, Duration timeout);
}
