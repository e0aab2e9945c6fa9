package dev.tickwheel.server.dispatch;

import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceOutput;
import dev.tickwheel.server.instance.WorkflowStep;
import java.time.Instant;

/**
 * What a target learns about the instance it runs, and where an in-process handler leaves its output. Serialized as
 * the JSON body of a webhook call.
 *
 * <p>Everything but the output is fixed at construction. The output is set by the handler running the instance
 * ({@link #setOutput}) and read by the dispatcher once the handler has returned (or its stage completed): the
 * completion of the handler's future orders the write before the read, and the field is volatile for handlers that
 * set it from another thread of their own.
 */
public final class JobContext {

    private final long instanceId;
    private final long jobId;
    private final String jobName;
    private final String params;
    private final Instant expectedTriggerTime;
    private final int attempt;
    private final int node;
    private final long epoch;
    private final String key;
    private final String callbackUrl;
    private final WorkflowStep workflow;
    private volatile String output;

    /**
     * @param instanceId          the instance's unique ID
     * @param jobId               its job
     * @param jobName             the job's name
     * @param params              the instance's parameters (the job's, unless the run supplied its own); may be null
     * @param expectedTriggerTime when it was due
     * @param attempt             1 for the first try, 2 for the first retry, ...; a call repeated after a server stop
     *                            keeps its attempt number
     * @param node                the node id of the member making the call (for forensics)
     * @param epoch               the epoch of the shard lease the call was claimed under: (shard, epoch) names one
     *                            member, so two deliveries of one key with different epochs came from different
     *                            owners
     * @param key                 the caller's key of an on-demand run (the one it created the run with), or null
     */
    public JobContext(long instanceId, long jobId, String jobName, String params, Instant expectedTriggerTime,
                      int attempt, int node, long epoch, String key) {
        this(instanceId, jobId, jobName, params, expectedTriggerTime, attempt, node, epoch, key, null);
    }

    /**
     * As the other constructor, for an attempt of a job that completes by callback.
     *
     * @param callbackUrl where the target reports this attempt's outcome (absolute, with its single-use token), or
     *                    null for a job that completes when its call does
     */
    public JobContext(long instanceId, long jobId, String jobName, String params, Instant expectedTriggerTime,
                      int attempt, int node, long epoch, String key, String callbackUrl) {
        this(instanceId, jobId, jobName, params, expectedTriggerTime, attempt, node, epoch, key, callbackUrl, null);
    }

    /**
     * As the other constructors, for an instance that may be a workflow step.
     *
     * @param workflow the workflow run and node this instance is a step of, with its parents' outcomes, or null
     */
    public JobContext(long instanceId, long jobId, String jobName, String params, Instant expectedTriggerTime,
                      int attempt, int node, long epoch, String key, String callbackUrl, WorkflowStep workflow) {
        this.instanceId = instanceId;
        this.jobId = jobId;
        this.jobName = jobName;
        this.params = params;
        this.expectedTriggerTime = expectedTriggerTime;
        this.attempt = attempt;
        this.node = node;
        this.epoch = epoch;
        this.key = key;
        this.callbackUrl = callbackUrl;
        this.workflow = workflow;
    }

    public long instanceId() {
        return instanceId;
    }

    public long jobId() {
        return jobId;
    }

    public String jobName() {
        return jobName;
    }

    /** The instance's parameters (JSON text, or any text a run gave), or null. */
    public String params() {
        return params;
    }

    public Instant expectedTriggerTime() {
        return expectedTriggerTime;
    }

    public int attempt() {
        return attempt;
    }

    public int node() {
        return node;
    }

    public long epoch() {
        return epoch;
    }

    /** The caller's key of an on-demand run, or null. */
    public String key() {
        return key;
    }

    /**
     * The workflow run and node this instance is a step of, and its parents' outcomes ({@link WorkflowStep#upstream}:
     * {@code {"<parent node>": {"instanceId", "status", "output"}}}); null for an instance that is no step.
     */
    public WorkflowStep workflow() {
        return workflow;
    }

    /** Where the target reports this attempt's outcome (completion CALLBACK), or null. */
    public String callbackUrl() {
        return callbackUrl;
    }

    /**
     * {@code <instanceId>-<attempt>}: the same for every delivery of one attempt, including one repeated because a
     * server stopped during the call, and different for a retry. A receiver that remembers the keys it has seen runs
     * each attempt once. Sent as the {@code Idempotency-Key} header of a webhook call.
     */
    public String idempotencyKey() {
        return instanceId + "-" + attempt;
    }

    /**
     * Sets this attempt's output: kept on the instance if the attempt succeeds ({@code output} in the API), and
     * handed to the next nodes of a workflow. A later call replaces an earlier one; null clears it.
     *
     * @param json exactly one JSON value (an object, an array, a string in quotes, a number, ...), at most
     *             {@link Instance#MAX_OUTPUT_LENGTH} characters
     * @throws IllegalArgumentException if it is not one JSON value, or is longer
     */
    public void setOutput(String json) {
        this.output = InstanceOutput.check(json);
    }

    /** The output {@link #setOutput} left, or null. */
    public String output() {
        return output;
    }

    @Override
    public String toString() {
        return "JobContext[instanceId=" + instanceId + ", jobId=" + jobId + ", jobName=" + jobName + ", attempt="
                + attempt + ", key=" + key + "]";
    }
}
