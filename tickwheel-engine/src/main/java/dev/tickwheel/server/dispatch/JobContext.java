package dev.tickwheel.server.dispatch;

import java.time.Instant;

/**
 * What a target learns about the instance it runs. Serialized as the JSON body of a webhook call.
 *
 * <p>Immutable.
 *
 * @param instanceId          the instance's unique ID
 * @param jobId               its job
 * @param jobName             the job's name
 * @param params              the instance's parameters (the job's, unless the run supplied its own); may be null
 * @param expectedTriggerTime when it was due
 * @param attempt             1 for the first try, 2 for the first retry, ...; a call repeated after a server stop
 *                            keeps its attempt number
 * @param node                the node id of the member making the call (for forensics)
 * @param epoch               the epoch of the shard lease the call was claimed under: (shard, epoch) names one
 *                            member, so two deliveries of one key with different epochs came from different owners
 * @param key                 the caller's key of an on-demand run (the one it created the run with), or null
 */
public record JobContext(long instanceId, long jobId, String jobName, String params, Instant expectedTriggerTime,
                         int attempt, int node, long epoch, String key) {

    /**
     * {@code <instanceId>-<attempt>}: the same for every delivery of one attempt, including one repeated because a
     * server stopped during the call, and different for a retry. A receiver that remembers the keys it has seen runs
     * each attempt once. Sent as the {@code Idempotency-Key} header of a webhook call.
     */
    public String idempotencyKey() {
        return instanceId + "-" + attempt;
    }
}
