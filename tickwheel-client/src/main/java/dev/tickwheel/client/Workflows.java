package dev.tickwheel.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.tickwheel.client.model.Page;
import dev.tickwheel.client.model.Workflow;
import dev.tickwheel.client.model.WorkflowRequest;
import dev.tickwheel.client.model.WorkflowRun;
import dev.tickwheel.client.model.WorkflowRunRequest;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The {@code /api/workflows} and {@code /api/workflow-runs} operations of a {@link TickwheelClient}: workflows of jobs
 * (a DAG of nodes and edges, not changed once created) and their runs. Each has a sync form and an {@code …Async}
 * form; which are retried is listed on {@link TickwheelClient}, and repeated here per method.
 *
 * <p>Thread-safe.
 */
public final class Workflows {

    private static final String RUNS = "/api/workflow-runs/";

    private final ApiTransport transport;
    private final ObjectMapper json;
    private final NamedResourceCalls<Workflow> calls;
    private final ObjectReader runReader;

    Workflows(ApiTransport transport, ObjectMapper json) {
        this.transport = transport;
        this.json = json;
        this.calls = new NamedResourceCalls<>(json, "/api/workflows", Workflow.class);
        this.runReader = json.readerFor(WorkflowRun.class);
    }

    /**
     * {@code POST /api/workflows}: creates a workflow. Not retried (a repeat would make a second workflow).
     *
     * @throws ValidationException naming the field at fault: {@code edges} for a cycle (the message names it),
     *                             {@code nodes[i].jobId} for an unknown job, {@code edges[i].to} for an unknown node…
     */
    public Workflow create(WorkflowRequest workflow) {
        return transport.call(calls.create(workflow));
    }

    public CompletableFuture<Workflow> createAsync(WorkflowRequest workflow) {
        return transport.send(calls.create(workflow));
    }

    /** {@code GET /api/workflows/{id}}. @throws NotFoundException if there is no such workflow */
    public Workflow get(long workflowId) {
        return transport.call(calls.get(Long.toString(workflowId)));
    }

    public CompletableFuture<Workflow> getAsync(long workflowId) {
        return transport.send(calls.get(Long.toString(workflowId)));
    }

    /** {@code GET /api/workflows}: every workflow, by ID (one page). */
    public List<Workflow> list() {
        return transport.call(calls.list()).items();
    }

    public CompletableFuture<List<Workflow>> listAsync() {
        return transport.send(calls.list()).thenApply(Page::items);
    }

    /**
     * {@code POST /api/workflows/{id}/run}: starts a run (its first nodes' instances are due now), or with a key
     * answers the run the key names. Retried only with a key: a repeat then answers the run the first attempt started
     * ({@link WorkflowRun#created()} false).
     *
     * @throws NotFoundException if there is no such workflow
     */
    public WorkflowRun run(long workflowId, WorkflowRunRequest run) {
        return transport.call(runCall(workflowId, run));
    }

    public CompletableFuture<WorkflowRun> runAsync(long workflowId, WorkflowRunRequest run) {
        return transport.send(runCall(workflowId, run));
    }

    private ApiCall<WorkflowRun> runCall(long workflowId, WorkflowRunRequest run) {
        return new ApiCall<>("POST", "/api/workflows/" + workflowId + "/run", ClientJson.body(json, run), run.keyed(),
                Set.of(200, 201), runReader);
    }

    /** {@code GET /api/workflow-runs/{id}}: the run and every node's status. @throws NotFoundException if unknown */
    public WorkflowRun getRun(long runId) {
        return transport.call(ApiCall.get(RUNS + runId, runReader));
    }

    public CompletableFuture<WorkflowRun> getRunAsync(long runId) {
        return transport.send(ApiCall.get(RUNS + runId, runReader));
    }

    /**
     * {@code POST /api/workflow-runs/{id}/cancel}: its pending nodes are SKIPPED and its nodes' WAITING instances
     * CANCELLED; a node's instance already DISPATCHING runs to its end, which then starts nothing. Retried: a run that
     * is over (one the first attempt cancelled too) is answered as it is, never refused.
     *
     * @return the run as it is after the cancel: CANCELLED, or the status it ended with before
     * @throws NotFoundException if there is no such run
     */
    public WorkflowRun cancelRun(long runId) {
        return transport.call(cancelRunCall(runId));
    }

    public CompletableFuture<WorkflowRun> cancelRunAsync(long runId) {
        return transport.send(cancelRunCall(runId));
    }

    private ApiCall<WorkflowRun> cancelRunCall(long runId) {
        return new ApiCall<>("POST", RUNS + runId + "/cancel", null, true, Set.of(200), runReader);
    }
}
