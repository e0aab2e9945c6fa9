package dev.tickwheel.server.dispatch;

import dev.tickwheel.server.job.Job;
import java.util.Map;
import java.util.Objects;

/**
 * Invokes in-process {@link JobHandler}s by the name a job's HANDLER target gives.
 *
 * <p>Immutable; thread-safe.
 */
public final class HandlerRegistry implements TargetInvoker {

    private final Map<String, JobHandler> handlers;

    public HandlerRegistry(Map<String, JobHandler> handlers) {
        this.handlers = Map.copyOf(Objects.requireNonNull(handlers, "handlers"));
    }

    public boolean contains(String name) {
        return handlers.containsKey(name);
    }

    @Override
    public void invoke(Job job, JobContext context) throws Exception {
        String name = job.target().value();
        JobHandler handler = handlers.get(name);
        if (handler == null) {
            throw new IllegalStateException("no handler registered under '" + name + "' (registered: "
                    + handlers.keySet() + ")");
        }
        handler.handle(context);
    }
}
