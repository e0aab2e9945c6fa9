package dev.tickwheel.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tickwheel.server.WorkflowService;
import dev.tickwheel.server.api.dto.PageResponse;
import dev.tickwheel.server.api.dto.WorkflowRequest;
import dev.tickwheel.server.api.dto.WorkflowResponse;
import dev.tickwheel.server.api.dto.WorkflowRunRequest;
import dev.tickwheel.server.api.dto.WorkflowRunResponse;
import dev.tickwheel.server.instance.RunKeys;
import dev.tickwheel.server.workflow.Workflow;
import dev.tickwheel.server.workflow.WorkflowRun;
import dev.tickwheel.time.ScheduleSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.NoSuchElementException;

/**
 * Handlers of {@code /api/workflows…} and {@code /api/workflow-runs…}: workflows of jobs (a DAG of nodes and edges)
 * and their runs. A workflow is created once and not changed; a run is started (safe to repeat with a key), read and
 * cancelled.
 *
 * <p>A workflow belongs to the namespace of its jobs: every node's job must be in one namespace (the caller's, for a
 * namespace's token), and a scheduled workflow's trigger job is made there. Another namespace's workflow or run is a
 * 404, as if it did not exist.
 *
 * <p>Thread-safe (immutable; the service is thread-safe).
 */
final class WorkflowRoutes {

    private final WorkflowService workflows;
    private final Scopes scopes;
    private final JsonBodyReader bodies;
    private final ObjectMapper json;

    WorkflowRoutes(WorkflowService workflows, Scopes scopes, JsonBodyReader bodies, ObjectMapper json) {
        this.workflows = workflows;
        this.scopes = scopes;
        this.bodies = bodies;
        this.json = json;
    }

    /** 201 with the workflow; 400 naming the field at fault ({@code edges} for a cycle, naming it). */
    void create(ApiExchange ctx) {
        WorkflowRequest request = bodies.read(ctx, WorkflowRequest.class, true);
        if (request.name() == null) {
            throw ApiException.missingField("name");
        }
        ScheduleSpec schedule = request.schedule() == null ? ScheduleSpec.api()
                : JobRequestParser.schedule(request.schedule());
        if (request.nodes() == null) {
            throw ApiException.missingField("nodes");
        }
        List<Workflow.Node> nodes = new ArrayList<>();
        for (int i = 0; i < request.nodes().size(); i++) {
            WorkflowRequest.NodeBody node = request.nodes().get(i);
            if (node == null || node.id() == null) {
                throw ApiException.missingField("nodes[" + i + "].id");
            }
            if (node.jobId() == null) {
                throw ApiException.missingField("nodes[" + i + "].jobId");
            }
            long jobId;
            try {
                jobId = Long.parseLong(node.jobId().trim());
            } catch (NumberFormatException e) {
                throw ApiException.invalidField("nodes[" + i + "].jobId", node.jobId(), "must be a job ID");
            }
            nodes.add(new Workflow.Node(node.id(), jobId));
        }
        List<Workflow.Edge> edges = new ArrayList<>();
        List<WorkflowRequest.EdgeBody> edgeBodies = request.edges() == null ? List.of() : request.edges();
        for (int i = 0; i < edgeBodies.size(); i++) {
            WorkflowRequest.EdgeBody edge = edgeBodies.get(i);
            String at = "edges[" + i + "]";
            if (edge == null || edge.from() == null) {
                throw ApiException.missingField(at + ".from");
            }
            if (edge.to() == null) {
                throw ApiException.missingField(at + ".to");
            }
            edges.add(new Workflow.Edge(edge.from(), edge.to(), on(at + ".on", edge.on())));
        }
        String namespace = namespaceOfNodes(ctx, nodes);
        Workflow created;
        try {
            created = workflows.create(request.name(), nodes, edges, schedule, namespace);
        } catch (Workflow.InvalidWorkflowException e) {
            throw ApiException.badField("invalid_field", e.field(), e.getMessage());
        } catch (dev.tickwheel.time.InvalidTimeExpressionException e) {
            throw e; // 400 naming the schedule's field, as for a job
        } catch (IllegalArgumentException e) { // the trigger job's schedule, as a job's would be refused
            throw ApiException.badField("invalid_field", "schedule", e.getMessage());
        }
        ctx.status(201).header("Location", "/api/workflows/" + created.id()).json(view(created));
    }

    /**
     * The one namespace of the nodes' jobs, which the caller must reach; a job of another namespace is refused as one
     * that does not exist.
     */
    private String namespaceOfNodes(ApiExchange ctx, List<Workflow.Node> nodes) {
        Caller caller = CallerExchange.caller(ctx);
        java.util.Map<Long, String> namespaces = scopes.namespacesOf(nodes.stream().map(Workflow.Node::jobId)
                .distinct().toList());
        String first = null;
        for (int i = 0; i < nodes.size(); i++) {
            String namespace = namespaces.get(nodes.get(i).jobId());
            if (!caller.reaches(namespace)) {
                throw ApiException.badField("invalid_field", "nodes[" + i + "].jobId", "no job "
                        + nodes.get(i).jobId());
            }
            if (first == null) {
                first = namespace;
            } else if (!first.equals(namespace)) {
                throw ApiException.badField("invalid_field", "nodes[" + i + "].jobId", "job " + nodes.get(i).jobId()
                        + " is in namespace " + ApiException.quoted(namespace) + ", the workflow's first job in "
                        + ApiException.quoted(first) + ": a workflow's jobs are in one namespace");
            }
        }
        String namespace = first == null ? caller.namespaceFor(null) : first;
        CallerExchange.changedIn(ctx, namespace);
        return namespace;
    }

    /** A workflow's namespace: its jobs'. */
    private String namespaceOf(Workflow workflow) {
        return scopes.namespaceOf(workflow.nodes().get(0).jobId());
    }

    /** The workflows of the caller's namespace (or of {@code ?namespace=}), by id. */
    void list(ApiExchange ctx) {
        String namespace = scopes.listedNamespace(ctx);
        List<Workflow> all = workflows.list();
        java.util.Map<Long, String> namespaces = scopes.namespacesOf(all.stream().map(w -> w.nodes().get(0).jobId())
                .distinct().toList());
        ctx.json(new PageResponse<>(all.stream()
                .filter(w -> namespace == null || namespace.equals(namespaces.get(w.nodes().get(0).jobId())))
                .map(WorkflowRoutes::view).toList(), null));
    }

    void get(ApiExchange ctx) {
        ctx.json(view(reachable(ctx, RequestIds.pathId(ctx.pathParam("id")))));
    }

    /** The workflow, if the caller reaches it (else 404, as for one that does not exist). */
    private Workflow reachable(ApiExchange ctx, long id) {
        Workflow workflow = workflows.get(id).orElseThrow(() -> ApiException.notFound("no workflow " + id));
        String namespace = namespaceOf(workflow);
        CallerExchange.changedIn(ctx, namespace);
        if (!CallerExchange.caller(ctx).reaches(namespace)) {
            throw ApiException.notFound("no workflow " + id);
        }
        return workflow;
    }

    /** The run, if the caller reaches its workflow (else 404, as for one that does not exist). */
    private WorkflowRun reachableRun(ApiExchange ctx, long runId) {
        WorkflowRun run = workflows.getRun(runId).orElseThrow(() -> ApiException.notFound("no workflow run "
                + runId));
        Workflow workflow = workflows.get(run.workflowId()).orElseThrow(() -> ApiException.notFound(
                "no workflow run " + runId));
        String namespace = namespaceOf(workflow);
        CallerExchange.changedIn(ctx, namespace);
        if (!CallerExchange.caller(ctx).reaches(namespace)) {
            throw ApiException.notFound("no workflow run " + runId);
        }
        return run;
    }

    /** 201 with the run; 200 with the existing run when its key names one; 404 for an unknown workflow. */
    void run(ApiExchange ctx) {
        long id = RequestIds.pathId(ctx.pathParam("id"));
        reachable(ctx, id);
        WorkflowRunRequest request = bodies.read(ctx, WorkflowRunRequest.class, false);
        String key = request == null ? null : request.key();
        String problem = key == null ? null : RunKeys.callerProblem(key);
        if (problem != null) {
            throw ApiException.badField("invalid_field", "key", problem);
        }
        JsonNode params = request == null ? null : request.params();
        WorkflowService.Started started;
        try {
            started = workflows.run(id, key, params == null || params.isNull() ? null
                    : JobRequestParser.paramsText(params));
        } catch (NoSuchElementException e) {
            throw ApiException.notFound("no workflow " + id);
        }
        ctx.status(started.created() ? 201 : 200).header("Location", "/api/workflow-runs/" + started.run().id())
                .json(view(started.run(), started.created()));
    }

    void getRun(ApiExchange ctx) {
        ctx.json(view(reachableRun(ctx, RequestIds.pathId(ctx.pathParam("id"))), null));
    }

    /** 200 with the run as it is after the cancel (a run over already is answered as it is); 404 if unknown. */
    void cancelRun(ApiExchange ctx) {
        long id = RequestIds.pathId(ctx.pathParam("id"));
        reachableRun(ctx, id);
        ctx.json(view(workflows.cancelRun(id).orElseThrow(() -> ApiException.notFound("no workflow run " + id))
                .run(), null));
    }

    private static Workflow.On on(String field, String raw) {
        if (raw == null) {
            throw ApiException.missingField(field);
        }
        try {
            return Workflow.On.valueOf(raw.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw ApiException.invalidField(field, raw, "must be SUCCEEDED, FAILED or ALWAYS");
        }
    }

    private static WorkflowResponse view(Workflow workflow) {
        return new WorkflowResponse(Long.toString(workflow.id()), workflow.name(),
                workflow.nodes().stream().map(n -> new WorkflowRequest.NodeBody(n.id(), Long.toString(n.jobId())))
                        .toList(),
                workflow.edges().stream().map(e -> new WorkflowRequest.EdgeBody(e.from(), e.to(), e.on().name()))
                        .toList(),
                workflow.triggerJobId() == null ? null : Long.toString(workflow.triggerJobId()),
                workflow.createdAt());
    }

    private WorkflowRunResponse view(WorkflowRun run, Boolean created) {
        JsonNode params = null;
        if (run.params() != null) {
            try {
                params = json.readTree(run.params());
            } catch (com.fasterxml.jackson.core.JsonProcessingException notJson) {
                params = json.getNodeFactory().textNode(run.params());
            }
        }
        return new WorkflowRunResponse(Long.toString(run.id()), Long.toString(run.workflowId()), run.status().name(),
                run.key(), params, run.createdAt(), run.updatedAt(),
                run.nodes().stream().map(n -> new WorkflowRunResponse.NodeRunBody(n.node(), n.status(),
                        n.instanceId() == null ? null : Long.toString(n.instanceId()))).toList(), created);
    }
}
