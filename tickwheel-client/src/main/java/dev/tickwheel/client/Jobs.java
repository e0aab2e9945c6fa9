package dev.tickwheel.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tickwheel.client.model.CancelResult;
import dev.tickwheel.client.model.Instance;
import dev.tickwheel.client.model.Job;
import dev.tickwheel.client.model.JobQuery;
import dev.tickwheel.client.model.JobRequest;
import dev.tickwheel.client.model.Page;
import dev.tickwheel.client.model.RescheduleRequest;
import dev.tickwheel.client.model.RescheduleResult;
import dev.tickwheel.client.model.RunRequest;
import dev.tickwheel.client.model.RunResult;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The {@code /api/jobs} operations of a {@link TickwheelClient}: jobs, their runs (single, batch) and runs by the
 * caller's key. Each has a sync form and an {@code …Async} form; which are retried is listed on
 * {@link TickwheelClient}, and repeated here per method.
 *
 * <p>Thread-safe.
 */
public final class Jobs {

    /** The answer of a batch run, {@code {"runs": [...]}}. */
    private record RunsAnswer(List<RunResult> runs) {
    }

    private final ApiTransport transport;
    private final ObjectMapper json;
    private final JavaType jobType;
    private final JavaType instanceType;

    Jobs(ApiTransport transport, ObjectMapper json) {
        this.transport = transport;
        this.json = json;
        this.jobType = json.constructType(Job.class);
        this.instanceType = json.constructType(Instance.class);
    }

    /** {@code POST /api/jobs}: creates a job. Not retried (a repeat would make a second job). */
    public Job create(JobRequest job) {
        return ApiTransport.await(createAsync(job));
    }

    public CompletableFuture<Job> createAsync(JobRequest job) {
        return transport.send(new ApiCall<>("POST", "/api/jobs", body(job), false, Set.of(201), jobType));
    }

    /** {@code GET /api/jobs/{id}}. @throws NotFoundException if there is no such job */
    public Job get(long jobId) {
        return ApiTransport.await(getAsync(jobId));
    }

    public CompletableFuture<Job> getAsync(long jobId) {
        return transport.send(ApiCall.get("/api/jobs/" + jobId, jobType));
    }

    /** {@code GET /api/jobs}: a page of jobs by name, then ID. */
    public Page<Job> list(JobQuery query) {
        return ApiTransport.await(listAsync(query));
    }

    public CompletableFuture<Page<Job>> listAsync(JobQuery query) {
        Map<String, Object> parameters = new LinkedHashMap<>();
        parameters.put("name", query.nameContains());
        parameters.put("limit", query.limit());
        parameters.put("cursor", query.cursor());
        return transport.send(ApiCall.get(RequestPaths.withQuery("/api/jobs", parameters),
                json.getTypeFactory().constructParametricType(Page.class, jobType)));
    }

    /**
     * {@code PUT /api/jobs/{id}}: replaces the job's definition (every field: one left null takes its default, except
     * the signing secret, which null keeps); waiting instances stay. Not retried (see {@link TickwheelClient}).
     */
    public Job replace(long jobId, JobRequest job) {
        return ApiTransport.await(replaceAsync(jobId, job));
    }

    public CompletableFuture<Job> replaceAsync(long jobId, JobRequest job) {
        return transport.send(new ApiCall<>("PUT", "/api/jobs/" + jobId, body(job), false, Set.of(200), jobType));
    }

    /** {@code DELETE /api/jobs/{id}}: deletes the job and cancels its waiting instances. Not retried. */
    public void delete(long jobId) {
        ApiTransport.await(deleteAsync(jobId));
    }

    public CompletableFuture<Void> deleteAsync(long jobId) {
        return transport.send(new ApiCall<>("DELETE", "/api/jobs/" + jobId, null, false, Set.of(204), null));
    }

    /** {@code POST /api/jobs/{id}/enable}. Not retried. */
    public Job enable(long jobId) {
        return ApiTransport.await(enableAsync(jobId));
    }

    public CompletableFuture<Job> enableAsync(long jobId) {
        return transport.send(new ApiCall<>("POST", "/api/jobs/" + jobId + "/enable", null, false, Set.of(200),
                jobType));
    }

    /** {@code POST /api/jobs/{id}/disable}: no new instances from its schedule; waiting ones fire. Not retried. */
    public Job disable(long jobId) {
        return ApiTransport.await(disableAsync(jobId));
    }

    public CompletableFuture<Job> disableAsync(long jobId) {
        return transport.send(new ApiCall<>("POST", "/api/jobs/" + jobId + "/disable", null, false, Set.of(200),
                jobType));
    }

    /**
     * {@code POST /api/jobs/{id}/run}: an on-demand instance, or with a key the one the key names. Retried only with a
     * key: a repeat then answers the instance the first attempt made ({@link RunResult#created()} false).
     */
    public RunResult run(long jobId, RunRequest run) {
        return ApiTransport.await(runAsync(jobId, run));
    }

    public CompletableFuture<RunResult> runAsync(long jobId, RunRequest run) {
        return transport.send(new ApiCall<>("POST", "/api/jobs/" + jobId + "/run", body(run), run.keyed(),
                Set.of(200, 201), json.constructType(RunResult.class)));
    }

    /**
     * {@code POST /api/jobs/{id}/runs}: 1..1 000 runs in one transaction, all or none; one result per run, in order.
     * Retried only if every run has a key.
     */
    public List<RunResult> runAll(long jobId, List<RunRequest> runs) {
        return ApiTransport.await(runAllAsync(jobId, runs));
    }

    public CompletableFuture<List<RunResult>> runAllAsync(long jobId, List<RunRequest> runs) {
        boolean everyKeyed = !runs.isEmpty() && runs.stream().allMatch(RunRequest::keyed);
        return transport.send(new ApiCall<RunsAnswer>("POST", "/api/jobs/" + jobId + "/runs",
                        body(Map.of("runs", runs)), everyKeyed, Set.of(200), json.constructType(RunsAnswer.class)))
                .thenApply(RunsAnswer::runs);
    }

    /** {@code GET /api/jobs/{id}/runs/{key}}: the instance the key names, with its attempts. */
    public Instance getRun(long jobId, String key) {
        return ApiTransport.await(getRunAsync(jobId, key));
    }

    public CompletableFuture<Instance> getRunAsync(long jobId, String key) {
        return transport.send(ApiCall.get(runPath(jobId, key), instanceType));
    }

    /**
     * {@code POST /api/jobs/{id}/runs/{key}/cancel}. Retried.
     *
     * @return outcome CANCELLED: it will never be dispatched
     * @throws ConflictException ALREADY_DISPATCHED or ALREADY_FINISHED
     */
    public CancelResult cancelRun(long jobId, String key) {
        return ApiTransport.await(cancelRunAsync(jobId, key));
    }

    public CompletableFuture<CancelResult> cancelRunAsync(long jobId, String key) {
        return transport.send(new ApiCall<>("POST", runPath(jobId, key) + "/cancel", null, true, Set.of(200),
                json.constructType(CancelResult.class)));
    }

    /**
     * {@code POST /api/jobs/{id}/runs/{key}/reschedule}. Retried if it names an instant.
     *
     * @return outcome RESCHEDULED: it runs at the new time and not at the old one
     * @throws ConflictException ALREADY_DISPATCHED or ALREADY_FINISHED: it runs, or ran, at its old time
     */
    public RescheduleResult rescheduleRun(long jobId, String key, RescheduleRequest when) {
        return ApiTransport.await(rescheduleRunAsync(jobId, key, when));
    }

    public CompletableFuture<RescheduleResult> rescheduleRunAsync(long jobId, String key, RescheduleRequest when) {
        return transport.send(new ApiCall<>("POST", runPath(jobId, key) + "/reschedule", body(when),
                when.absolute(), Set.of(200), json.constructType(RescheduleResult.class)));
    }

    private static String runPath(long jobId, String key) {
        if (Objects.requireNonNull(key, "key").isEmpty()) {
            throw new IllegalArgumentException("key must not be empty");
        }
        return "/api/jobs/" + jobId + "/runs/" + RequestPaths.segment(key);
    }

    private byte[] body(Object value) {
        try {
            return json.writeValueAsBytes(Objects.requireNonNull(value, "body"));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("the request cannot be written as JSON: " + e.getOriginalMessage(), e);
        }
    }
}
