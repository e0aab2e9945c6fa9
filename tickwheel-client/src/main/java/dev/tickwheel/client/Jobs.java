package dev.tickwheel.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
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
    private final ObjectReader jobReader;
    private final ObjectReader jobPageReader;
    private final ObjectReader instanceReader;
    private final ObjectReader runReader;
    private final ObjectReader runsReader;
    private final ObjectReader cancelReader;
    private final ObjectReader rescheduleReader;

    Jobs(ApiTransport transport, ObjectMapper json) {
        this.transport = transport;
        this.json = json;
        this.jobReader = json.readerFor(Job.class);
        this.jobPageReader = json.readerFor(json.getTypeFactory().constructParametricType(Page.class, Job.class));
        this.instanceReader = json.readerFor(Instance.class);
        this.runReader = json.readerFor(RunResult.class);
        this.runsReader = json.readerFor(RunsAnswer.class);
        this.cancelReader = json.readerFor(CancelResult.class);
        this.rescheduleReader = json.readerFor(RescheduleResult.class);
    }

    /** {@code POST /api/jobs}: creates a job. Not retried (a repeat would make a second job). */
    public Job create(JobRequest job) {
        return transport.call(createCall(job));
    }

    public CompletableFuture<Job> createAsync(JobRequest job) {
        return transport.send(createCall(job));
    }

    private ApiCall<Job> createCall(JobRequest job) {
        return new ApiCall<>("POST", "/api/jobs", body(job), false, Set.of(201), jobReader);
    }

    /** {@code GET /api/jobs/{id}}. @throws NotFoundException if there is no such job */
    public Job get(long jobId) {
        return transport.call(ApiCall.get("/api/jobs/" + jobId, jobReader));
    }

    public CompletableFuture<Job> getAsync(long jobId) {
        return transport.send(ApiCall.get("/api/jobs/" + jobId, jobReader));
    }

    /** {@code GET /api/jobs}: a page of jobs by name, then ID. */
    public Page<Job> list(JobQuery query) {
        return transport.call(listCall(query));
    }

    public CompletableFuture<Page<Job>> listAsync(JobQuery query) {
        return transport.send(listCall(query));
    }

    private ApiCall<Page<Job>> listCall(JobQuery query) {
        Map<String, Object> parameters = new LinkedHashMap<>();
        parameters.put("name", query.nameContains());
        parameters.put("namespace", query.namespace());
        parameters.put("limit", query.limit());
        parameters.put("cursor", query.cursor());
        return ApiCall.get(RequestPaths.withQuery("/api/jobs", parameters), jobPageReader);
    }

    /**
     * {@code PUT /api/jobs/{id}}: replaces the job's definition (every field: one left null takes its default, except
     * the signing secret, which null keeps); waiting instances stay. Not retried (see {@link TickwheelClient}).
     */
    public Job replace(long jobId, JobRequest job) {
        return transport.call(replaceCall(jobId, job));
    }

    public CompletableFuture<Job> replaceAsync(long jobId, JobRequest job) {
        return transport.send(replaceCall(jobId, job));
    }

    private ApiCall<Job> replaceCall(long jobId, JobRequest job) {
        return new ApiCall<>("PUT", "/api/jobs/" + jobId, body(job), false, Set.of(200), jobReader);
    }

    /** {@code DELETE /api/jobs/{id}}: deletes the job and cancels its waiting instances. Not retried. */
    public void delete(long jobId) {
        transport.call(deleteCall(jobId));
    }

    public CompletableFuture<Void> deleteAsync(long jobId) {
        return transport.send(deleteCall(jobId));
    }

    private static ApiCall<Void> deleteCall(long jobId) {
        return new ApiCall<>("DELETE", "/api/jobs/" + jobId, null, false, Set.of(204), null);
    }

    /** {@code POST /api/jobs/{id}/enable}. Not retried. */
    public Job enable(long jobId) {
        return transport.call(switchCall(jobId, "/enable"));
    }

    public CompletableFuture<Job> enableAsync(long jobId) {
        return transport.send(switchCall(jobId, "/enable"));
    }

    /** {@code POST /api/jobs/{id}/disable}: no new instances from its schedule; waiting ones fire. Not retried. */
    public Job disable(long jobId) {
        return transport.call(switchCall(jobId, "/disable"));
    }

    public CompletableFuture<Job> disableAsync(long jobId) {
        return transport.send(switchCall(jobId, "/disable"));
    }

    /** Enable or disable. */
    private ApiCall<Job> switchCall(long jobId, String action) {
        return new ApiCall<>("POST", "/api/jobs/" + jobId + action, null, false, Set.of(200), jobReader);
    }

    /**
     * {@code POST /api/jobs/{id}/run}: an on-demand instance, or with a key the one the key names. Retried only with a
     * key: a repeat then answers the instance the first attempt made ({@link RunResult#created()} false).
     */
    public RunResult run(long jobId, RunRequest run) {
        return transport.call(runCall(jobId, run));
    }

    public CompletableFuture<RunResult> runAsync(long jobId, RunRequest run) {
        return transport.send(runCall(jobId, run));
    }

    private ApiCall<RunResult> runCall(long jobId, RunRequest run) {
        return new ApiCall<>("POST", "/api/jobs/" + jobId + "/run", body(run), run.keyed(), Set.of(200, 201),
                runReader);
    }

    /**
     * {@code POST /api/jobs/{id}/runs}: 1..1 000 runs in one transaction, all or none; one result per run, in order.
     * Retried only if every run has a key.
     */
    public List<RunResult> runAll(long jobId, List<RunRequest> runs) {
        return transport.call(runAllCall(jobId, runs)).runs();
    }

    public CompletableFuture<List<RunResult>> runAllAsync(long jobId, List<RunRequest> runs) {
        return transport.send(runAllCall(jobId, runs)).thenApply(RunsAnswer::runs);
    }

    private ApiCall<RunsAnswer> runAllCall(long jobId, List<RunRequest> runs) {
        boolean everyKeyed = !runs.isEmpty() && runs.stream().allMatch(RunRequest::keyed);
        return new ApiCall<>("POST", "/api/jobs/" + jobId + "/runs", body(Map.of("runs", runs)), everyKeyed,
                Set.of(200), runsReader);
    }

    /** {@code GET /api/jobs/{id}/runs/{key}}: the instance the key names, with its attempts. */
    public Instance getRun(long jobId, String key) {
        return transport.call(ApiCall.get(runPath(jobId, key), instanceReader));
    }

    public CompletableFuture<Instance> getRunAsync(long jobId, String key) {
        return transport.send(ApiCall.get(runPath(jobId, key), instanceReader));
    }

    /**
     * {@code POST /api/jobs/{id}/runs/{key}/cancel}. Retried.
     *
     * @return outcome CANCELLED: it will never be dispatched
     * @throws ConflictException ALREADY_DISPATCHED or ALREADY_FINISHED
     */
    public CancelResult cancelRun(long jobId, String key) {
        return transport.call(cancelRunCall(jobId, key));
    }

    public CompletableFuture<CancelResult> cancelRunAsync(long jobId, String key) {
        return transport.send(cancelRunCall(jobId, key));
    }

    private ApiCall<CancelResult> cancelRunCall(long jobId, String key) {
        return new ApiCall<>("POST", runPath(jobId, key) + "/cancel", null, true, Set.of(200), cancelReader);
    }

    /**
     * {@code POST /api/jobs/{id}/runs/{key}/reschedule}. Retried if it names an instant.
     *
     * @return outcome RESCHEDULED: it runs at the new time and not at the old one
     * @throws ConflictException ALREADY_DISPATCHED or ALREADY_FINISHED: it runs, or ran, at its old time
     */
    public RescheduleResult rescheduleRun(long jobId, String key, RescheduleRequest when) {
        return transport.call(rescheduleRunCall(jobId, key, when));
    }

    public CompletableFuture<RescheduleResult> rescheduleRunAsync(long jobId, String key, RescheduleRequest when) {
        return transport.send(rescheduleRunCall(jobId, key, when));
    }

    private ApiCall<RescheduleResult> rescheduleRunCall(long jobId, String key, RescheduleRequest when) {
        return new ApiCall<>("POST", runPath(jobId, key) + "/reschedule", body(when), when.absolute(), Set.of(200),
                rescheduleReader);
    }

    private static String runPath(long jobId, String key) {
        if (Objects.requireNonNull(key, "key").isEmpty()) {
            throw new IllegalArgumentException("key must not be empty");
        }
        return "/api/jobs/" + jobId + "/runs/" + RequestPaths.segment(key);
    }

    private byte[] body(Object value) {
        return ClientJson.body(json, value);
    }
}
