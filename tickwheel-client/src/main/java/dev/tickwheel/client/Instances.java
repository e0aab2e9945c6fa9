package dev.tickwheel.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.tickwheel.client.model.CancelResult;
import dev.tickwheel.client.model.Instance;
import dev.tickwheel.client.model.InstanceQuery;
import dev.tickwheel.client.model.Page;
import dev.tickwheel.client.model.RerunAllResult;
import dev.tickwheel.client.model.RerunFilter;
import dev.tickwheel.client.model.RescheduleRequest;
import dev.tickwheel.client.model.RescheduleResult;
import dev.tickwheel.client.model.RunResult;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The {@code /api/instances} operations of a {@link TickwheelClient}: read one with its attempts, list the history,
 * cancel one or many, reschedule, rerun one or many. Each has a sync form and an {@code …Async} form. Reads and cancels are retried, a
 * reschedule if it names an instant (see {@link TickwheelClient}).
 *
 * <p>Thread-safe.
 */
public final class Instances {

    /** The answer of a batch cancel, {@code {"results": [...]}}. */
    private record CancelsAnswer(List<CancelResult> results) {
    }

    private final ApiTransport transport;
    private final ObjectMapper json;
    private final ObjectReader instanceReader;
    private final ObjectReader instancePageReader;
    private final ObjectReader cancelReader;
    private final ObjectReader cancelsReader;
    private final ObjectReader rescheduleReader;
    private final ObjectReader runReader;
    private final ObjectReader rerunAllReader;

    Instances(ApiTransport transport, ObjectMapper json) {
        this.transport = transport;
        this.json = json;
        this.instanceReader = json.readerFor(Instance.class);
        this.instancePageReader = json.readerFor(json.getTypeFactory().constructParametricType(Page.class,
                Instance.class));
        this.cancelReader = json.readerFor(CancelResult.class);
        this.cancelsReader = json.readerFor(CancelsAnswer.class);
        this.rescheduleReader = json.readerFor(RescheduleResult.class);
        this.runReader = json.readerFor(RunResult.class);
        this.rerunAllReader = json.readerFor(RerunAllResult.class);
    }

    /** {@code GET /api/instances/{id}}: one instance with its attempts. @throws NotFoundException if unknown */
    public Instance get(long instanceId) {
        return transport.call(ApiCall.get("/api/instances/" + instanceId, instanceReader));
    }

    public CompletableFuture<Instance> getAsync(long instanceId) {
        return transport.send(ApiCall.get("/api/instances/" + instanceId, instanceReader));
    }

    /** {@code GET /api/instances}: a page of instances, newest first, filtered by {@code query}. */
    public Page<Instance> list(InstanceQuery query) {
        return transport.call(listCall(query));
    }

    public CompletableFuture<Page<Instance>> listAsync(InstanceQuery query) {
        return transport.send(listCall(query));
    }

    private ApiCall<Page<Instance>> listCall(InstanceQuery query) {
        Map<String, Object> parameters = new LinkedHashMap<>();
        parameters.put("jobId", query.jobId());
        parameters.put("key", query.key());
        parameters.put("status", query.status());
        parameters.put("from", query.from());
        parameters.put("to", query.to());
        parameters.put("namespace", query.namespace());
        parameters.put("limit", query.limit());
        parameters.put("cursor", query.cursor());
        return ApiCall.get(RequestPaths.withQuery("/api/instances", parameters), instancePageReader);
    }

    /**
     * {@code POST /api/instances/{id}/cancel}. Retried.
     *
     * @return outcome CANCELLED: it will never be dispatched
     * @throws ConflictException ALREADY_DISPATCHED or ALREADY_FINISHED (also a second cancel)
     * @throws NotFoundException if there is no such instance
     */
    public CancelResult cancel(long instanceId) {
        return transport.call(cancelCall(instanceId));
    }

    public CompletableFuture<CancelResult> cancelAsync(long instanceId) {
        return transport.send(cancelCall(instanceId));
    }

    private ApiCall<CancelResult> cancelCall(long instanceId) {
        return new ApiCall<>("POST", "/api/instances/" + instanceId + "/cancel", null, true, Set.of(200),
                cancelReader);
    }

    /**
     * {@code POST /api/instances/cancel}: 1..1 000 cancels in one transaction, one result per ID in order (an unknown
     * ID is NOT_FOUND, a refused one ALREADY_DISPATCHED or ALREADY_FINISHED: results, not exceptions). Retried.
     */
    public List<CancelResult> cancelAll(List<Long> instanceIds) {
        return transport.call(cancelAllCall(instanceIds)).results();
    }

    public CompletableFuture<List<CancelResult>> cancelAllAsync(List<Long> instanceIds) {
        return transport.send(cancelAllCall(instanceIds)).thenApply(CancelsAnswer::results);
    }

    private ApiCall<CancelsAnswer> cancelAllCall(List<Long> instanceIds) {
        List<String> ids = instanceIds.stream().map(String::valueOf).toList(); // strings, as the API's IDs are
        return new ApiCall<>("POST", "/api/instances/cancel", body(Map.of("ids", ids)), true, Set.of(200),
                cancelsReader);
    }

    /**
     * {@code POST /api/instances/{id}/reschedule}: moves a waiting instance. Retried if it names an instant.
     *
     * @return outcome RESCHEDULED: it runs at the new time and not at the old one
     * @throws ConflictException ALREADY_DISPATCHED or ALREADY_FINISHED: it runs, or ran, at its old time
     */
    public RescheduleResult reschedule(long instanceId, RescheduleRequest when) {
        return transport.call(rescheduleCall(instanceId, when));
    }

    public CompletableFuture<RescheduleResult> rescheduleAsync(long instanceId, RescheduleRequest when) {
        return transport.send(rescheduleCall(instanceId, when));
    }

    private ApiCall<RescheduleResult> rescheduleCall(long instanceId, RescheduleRequest when) {
        return new ApiCall<>("POST", "/api/instances/" + instanceId + "/reschedule", body(when), when.absolute(),
                Set.of(200), rescheduleReader);
    }

    /**
     * {@code POST /api/instances/{id}/rerun}: runs a finished instance again (same job, params and priority, due now;
     * the rerun's {@code rerunOf} names it). Retried: the rerun's key is {@code rerun-of-<id>}, so a repeat answers
     * the first rerun ({@link RunResult#created()} false).
     *
     * @throws ConflictException the instance is not finished (not_finished)
     * @throws NotFoundException if there is no such instance, or its job was deleted
     */
    public RunResult rerun(long instanceId) {
        return transport.call(rerunCall(instanceId, null));
    }

    /** As {@link #rerun(long)} under the caller's {@code key} (another key makes another rerun). Retried. */
    public RunResult rerun(long instanceId, String key) {
        return transport.call(rerunCall(instanceId, key));
    }

    public CompletableFuture<RunResult> rerunAsync(long instanceId) {
        return transport.send(rerunCall(instanceId, null));
    }

    private ApiCall<RunResult> rerunCall(long instanceId, String key) {
        return new ApiCall<>("POST", "/api/instances/" + instanceId + "/rerun",
                key == null ? null : body(Map.of("key", key)), true, Set.of(200, 201), runReader);
    }

    /**
     * {@code POST /api/instances/rerun}: reruns every finished instance the filter matches, each once (its key is
     * {@code rerun-of-<id>}), at most 10 000 a call ({@link RerunAllResult#more()}: call again). Retried, for that
     * reason.
     */
    public RerunAllResult rerunAll(RerunFilter filter) {
        return transport.call(rerunAllCall(filter));
    }

    public CompletableFuture<RerunAllResult> rerunAllAsync(RerunFilter filter) {
        return transport.send(rerunAllCall(filter));
    }

    private ApiCall<RerunAllResult> rerunAllCall(RerunFilter filter) {
        return new ApiCall<>("POST", "/api/instances/rerun", body(filter), true, Set.of(200), rerunAllReader);
    }

    private byte[] body(Object value) {
        return ClientJson.body(json, value);
    }
}
