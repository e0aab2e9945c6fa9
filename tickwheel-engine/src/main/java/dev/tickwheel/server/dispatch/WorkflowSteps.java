package dev.tickwheel.server.dispatch;

import dev.tickwheel.server.instance.Instance;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * What the dispatcher needs to end a workflow step: the ids of the instances the run's next step creates, and who
 * arms them (their shards' owners). Set once by the server ({@link InstanceDispatcher#takeWorkflowSteps}).
 *
 * <p>Thread-safe: its fields are volatile, and each is thread-safe.
 */
final class WorkflowSteps {

    private volatile LongSupplier ids = () -> {
        throw new IllegalStateException("this dispatcher mints no ids for workflow steps: the server sets them");
    };
    private volatile Consumer<Instance> created = instance -> { };

    LongSupplier ids() {
        return ids;
    }

    Consumer<Instance> created() {
        return created;
    }

    void set(LongSupplier newIds, Consumer<Instance> newCreated) {
        this.ids = Objects.requireNonNull(newIds, "ids");
        this.created = Objects.requireNonNull(newCreated, "created");
    }
}
