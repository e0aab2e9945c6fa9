package dev.tickwheel.server.store;

import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.workflow.WorkflowRun;
import java.util.List;

/**
 * What starting a workflow run wrote.
 *
 * @param run       the run (an existing one, when its key named one)
 * @param created   false when the key named an existing run: nothing was written
 * @param instances the instances of its first nodes, created with it (to arm)
 */
public record WorkflowStart(WorkflowRun run, boolean created, List<Instance> instances) {
    public WorkflowStart {
        instances = List.copyOf(instances);
    }
}
