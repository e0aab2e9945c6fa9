package dev.tickwheel.server.store;

import dev.tickwheel.server.workflow.Workflow;
import java.util.List;
import java.util.Optional;

/**
 * Workflow definitions. A definition is written once and never changed; its runs are in {@link InstanceStore}, since
 * they create instances.
 *
 * <p>Implementations are thread-safe.
 */
public interface WorkflowStore {

    /** Stores a new workflow. */
    void insert(Workflow workflow);

    Optional<Workflow> get(long id);

    /** Every workflow, by id. */
    List<Workflow> list();
}
