package dev.tickwheel.server.dispatch;

import dev.tickwheel.server.job.Job;
import java.util.Objects;

/**
 * Chooses the invoker for a job's target type.
 *
 * <p>Immutable; thread-safe.
 */
public final class TargetRouter implements TargetInvoker {

    private final TargetInvoker handlers;
    private final TargetInvoker webhooks;

    public TargetRouter(TargetInvoker handlers, TargetInvoker webhooks) {
        this.handlers = Objects.requireNonNull(handlers, "handlers");
        this.webhooks = Objects.requireNonNull(webhooks, "webhooks");
    }

    @Override
    public void invoke(Job job, JobContext context) throws Exception {
        switch (job.target().type()) {
            case HANDLER -> handlers.invoke(job, context);
            case WEBHOOK -> webhooks.invoke(job, context);
            default -> throw new IllegalStateException("unknown target type " + job.target().type());
        }
    }
}
