package dev.tickwheel.client.model;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A run of a workflow: the body of {@code POST /api/workflows/{id}/run}. The run starts at once: its first nodes (those
 * no edge leads into) get their instances, due now.
 *
 * <p>With a {@code key} the run is safe to repeat: the key is the run's identity within its workflow, so the same key
 * again answers the run the first call made ({@link WorkflowRun#created()} false), whatever params the repeat carries.
 * The client retries only keyed runs (see {@link dev.tickwheel.client.TickwheelClient}).
 *
 * <p>Immutable. Start from {@link #now()}, then {@link #withKey}, {@link #withParams}.
 *
 * @param key    the caller's key, 1..200 printable characters, or null for none
 * @param params any value Jackson can write, handed to every node's instance instead of its job's params; null for
 *               each job's own
 */
@JsonInclude(JsonInclude.Include.NON_NULL) // an absent field takes the server's default
public record WorkflowRunRequest(String key, Object params) {

    public WorkflowRunRequest {
        if (key != null && key.isEmpty()) {
            throw new IllegalArgumentException("key must not be empty (null for none)");
        }
    }

    /** A run that starts at once, without a key or params. */
    public static WorkflowRunRequest now() {
        return new WorkflowRunRequest(null, null);
    }

    /** This run with the caller's {@code key}: safe to repeat. */
    public WorkflowRunRequest withKey(String key) {
        return new WorkflowRunRequest(key, params);
    }

    /** This run with {@code params} for every node's instance. */
    public WorkflowRunRequest withParams(Object params) {
        return new WorkflowRunRequest(key, params);
    }

    /** Whether the run has a key, which makes it safe to repeat. */
    public boolean keyed() {
        return key != null;
    }
}
