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
 * <p>Thread-safe (immutable; the service is thread-safe).
 */
final class WorkflowRoutes {

    private final WorkflowService workflows;
    private final JsonBodyReader bodies;
    private final ObjectMapper json;

    WorkflowRoutes(WorkflowService workflows, JsonBodyReader bodies, ObjectMapper json) {
        this.workflows = workflows;
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
        Workflow created;
        try {
            created = workflows.create(request.name(), nodes, edges, schedule);
        } catch (Workflow.InvalidWorkflowException e) {
            throw ApiException.badField("invalid_field", e.field(), e.getMessage());
        } catch (dev.tickwheel.time.InvalidTimeExpressionException e) {
            throw e; // 400 naming the schedule's field, as for a job
        } catch (IllegalArgumentException e) { // the trigger job's schedule, as a job's would be refused
            throw ApiException.badField("invalid_field", "schedule", e.getMessage());
        }
        ctx.status(201).header("Location", "/api/workflows/" + created.id()).json(view(created));
    }

    void list(ApiExchange ctx) {
        ctx.json(new PageResponse<>(workflows.list().stream().map(WorkflowRoutes::view).toList(), null));
    }

    void get(ApiExchange ctx) {
        long id = RequestIds.pathId(ctx.pathParam("id"));
        ctx.json(view(workflows.get(id).orElseThrow(() -> ApiException.notFound("no workflow " + id))));
    }

    /** 201 with the run; 200 with the existing run when its key names one; 404 for an unknown workflow. */
    void run(ApiExchange ctx) {
        long id = RequestIds.pathId(ctx.pathParam("id"));
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
        long id = RequestIds.pathId(ctx.pathParam("id"));
        ctx.json(view(workflows.getRun(id).orElseThrow(() -> ApiException.notFound("no workflow run " + id)),
                null));
    }

    /** 200 with the run as it is after the cancel (a run over already is answered as it is); 404 if unknown. */
    void cancelRun(ApiExchange ctx) {
        long id = RequestIds.pathId(ctx.pathParam("id"));
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
