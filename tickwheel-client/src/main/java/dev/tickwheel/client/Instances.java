package dev.tickwheel.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tickwheel.client.model.CancelResult;
import dev.tickwheel.client.model.Instance;
import dev.tickwheel.client.model.InstanceQuery;
import dev.tickwheel.client.model.Page;
import dev.tickwheel.client.model.RescheduleRequest;
import dev.tickwheel.client.model.RescheduleResult;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The {@code /api/instances} operations of a {@link TickwheelClient}: read one with its attempts, list the history,
 * cancel one or many, reschedule. Each has a sync form and an {@code …Async} form. Reads and cancels are retried, a
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
    private final JavaType instanceType;

    Instances(ApiTransport transport, ObjectMapper json) {
        this.transport = transport;
        this.json = json;
        this.instanceType = json.constructType(Instance.class);
    }

    /** {@code GET /api/instances/{id}}: one instance with its attempts. @throws NotFoundException if unknown */
    public Instance get(long instanceId) {
        return ApiTransport.await(getAsync(instanceId));
    }

    public CompletableFuture<Instance> getAsync(long instanceId) {
        return transport.send(ApiCall.get("/api/instances/" + instanceId, instanceType));
    }

    /** {@code GET /api/instances}: a page of instances, newest first, filtered by {@code query}. */
    public Page<Instance> list(InstanceQuery query) {
        return ApiTransport.await(listAsync(query));
    }

    public CompletableFuture<Page<Instance>> listAsync(InstanceQuery query) {
        Map<String, Object> parameters = new LinkedHashMap<>();
        parameters.put("jobId", query.jobId());
        parameters.put("key", query.key());
        parameters.put("status", query.status());
        parameters.put("from", query.from());
        parameters.put("to", query.to());
        parameters.put("limit", query.limit());
        parameters.put("cursor", query.cursor());
        return transport.send(ApiCall.get(RequestPaths.withQuery("/api/instances", parameters),
                json.getTypeFactory().constructParametricType(Page.class, instanceType)));
    }

    /**
     * {@code POST /api/instances/{id}/cancel}. Retried.
     *
     * @return outcome CANCELLED: it will never be dispatched
     * @throws ConflictException ALREADY_DISPATCHED or ALREADY_FINISHED (also a second cancel)
     * @throws NotFoundException if there is no such instance
     */
    public CancelResult cancel(long instanceId) {
        return ApiTransport.await(cancelAsync(instanceId));
    }

    public CompletableFuture<CancelResult> cancelAsync(long instanceId) {
        return transport.send(new ApiCall<>("POST", "/api/instances/" + instanceId + "/cancel", null, true,
                Set.of(200), json.constructType(CancelResult.class)));
    }

    /**
     * {@code POST /api/instances/cancel}: 1..1 000 cancels in one transaction, one result per ID in order (an unknown
     * ID is NOT_FOUND, a refused one ALREADY_DISPATCHED or ALREADY_FINISHED: results, not exceptions). Retried.
     */
    public List<CancelResult> cancelAll(List<Long> instanceIds) {
        return ApiTransport.await(cancelAllAsync(instanceIds));
    }

    public CompletableFuture<List<CancelResult>> cancelAllAsync(List<Long> instanceIds) {
        List<String> ids = instanceIds.stream().map(String::valueOf).toList(); // strings, as the API's IDs are
        return transport.send(new ApiCall<CancelsAnswer>("POST", "/api/instances/cancel", body(Map.of("ids", ids)),
                true, Set.of(200), json.constructType(CancelsAnswer.class))).thenApply(CancelsAnswer::results);
    }

    /**
     * {@code POST /api/instances/{id}/reschedule}: moves a waiting instance. Retried if it names an instant.
     *
     * @return outcome RESCHEDULED: it runs at the new time and not at the old one
     * @throws ConflictException ALREADY_DISPATCHED or ALREADY_FINISHED: it runs, or ran, at its old time
     */
    public RescheduleResult reschedule(long instanceId, RescheduleRequest when) {
        return ApiTransport.await(rescheduleAsync(instanceId, when));
    }

    public CompletableFuture<RescheduleResult> rescheduleAsync(long instanceId, RescheduleRequest when) {
        return transport.send(new ApiCall<>("POST", "/api/instances/" + instanceId + "/reschedule", body(when),
                when.absolute(), Set.of(200), json.constructType(RescheduleResult.class)));
    }

    private byte[] body(Object value) {
        try {
            return json.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("the request cannot be written as JSON: " + e.getOriginalMessage(), e);
        }
    }
}
