package dev.tickwheel.server.api.dto;

import java.util.List;

/**
 * Body of {@code POST /api/workflows}.
 *
 * <p>Immutable.
 *
 * @param name     1..200 characters; required
 * @param schedule optional, a job's schedule: its trigger job starts a run at each trigger time; absent or
 *                 {@code {"type": "API"}}: runs are started by {@code POST /api/workflows/{id}/run} only
 * @param nodes    at least one; each {@code {"id", "jobId"}}
 * @param edges    {@code {"from", "to", "on"}}, {@code on} SUCCEEDED, FAILED or ALWAYS; no cycle
 */
public record WorkflowRequest(String name, ScheduleBody schedule, List<NodeBody> nodes, List<EdgeBody> edges) {

    /** A node: its id in the workflow and the job it runs (a decimal string, or a number). */
    public record NodeBody(String id, String jobId) {
    }

    /** An edge from a parent to a child, holding on the parent's final status. */
    public record EdgeBody(String from, String to, String on) {
    }
}
