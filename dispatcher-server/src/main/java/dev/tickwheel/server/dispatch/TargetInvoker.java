package dev.tickwheel.server.dispatch;

import dev.tickwheel.server.job.Job;

/**
 * Delivers one instance to its job's target.
 *
 * <p>Implementations are thread-safe.
 */
public interface TargetInvoker {

    /** Returns normally on success; throws with a message worth storing as the instance's error on failure. */
    void invoke(Job job, JobContext context) throws Exception;
}
