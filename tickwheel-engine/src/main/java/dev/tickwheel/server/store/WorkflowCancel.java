package dev.tickwheel.server.store;

import dev.tickwheel.server.workflow.WorkflowRun;
import java.util.List;

/**
 * What cancelling a workflow run did.
 *
 * @param run       the run as it is now
 * @param cancelled the waiting instances of its started nodes that were cancelled (to disarm)
 * @param changed   false if the run was over already: nothing changed
 */
public record WorkflowCancel(WorkflowRun run, List<Long> cancelled, boolean changed) {
    public WorkflowCancel {
        cancelled = List.copyOf(cancelled);
    }
}
