package dev.tickwheel.server;

import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.JobOperations;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.time.MisfirePolicy;
import dev.tickwheel.time.ScheduleSpec;
import java.util.Objects;

/**
 * What a user says about a job when creating or replacing it; the server adds the ID and the next trigger time.
 *
 * <p>Immutable.
 *
 * @param operations        retention, alert webhook and signing secret
 * @param keepSigningSecret on a replace, keep the stored signing secret and ignore {@code operations}' one: a request
 *                          that does not mention the secret must not remove it, since the API never shows it back
 */
public record JobSpec(String name, ScheduleSpec schedule, Target target, String params, boolean enabled,
                      MisfirePolicy misfirePolicy, RetryPolicy retryPolicy, DeliveryPolicy delivery,
                      JobOperations operations, boolean keepSigningSecret) {

    public JobSpec {
        Objects.requireNonNull(schedule, "schedule");
        Objects.requireNonNull(target, "target");
        misfirePolicy = misfirePolicy != null ? misfirePolicy : MisfirePolicy.FIRE_ONCE_NOW;
        retryPolicy = retryPolicy != null ? retryPolicy : RetryPolicy.NONE;
        delivery = delivery != null ? delivery : DeliveryPolicy.DEFAULT;
        operations = operations != null ? operations : JobOperations.DEFAULT;
    }

    public static JobSpec of(String name, ScheduleSpec schedule, Target target) {
        return new JobSpec(name, schedule, target, null, true, MisfirePolicy.FIRE_ONCE_NOW, RetryPolicy.NONE,
                DeliveryPolicy.DEFAULT, JobOperations.DEFAULT, false);
    }

    public JobSpec withRetry(RetryPolicy retry) {
        return new JobSpec(name, schedule, target, params, enabled, misfirePolicy, retry, delivery, operations,
                keepSigningSecret);
    }

    public JobSpec withParams(String newParams) {
        return new JobSpec(name, schedule, target, newParams, enabled, misfirePolicy, retryPolicy, delivery, operations,
                keepSigningSecret);
    }

    public JobSpec withMisfirePolicy(MisfirePolicy policy) {
        return new JobSpec(name, schedule, target, params, enabled, policy, retryPolicy, delivery, operations,
                keepSigningSecret);
    }

    public JobSpec withSchedule(ScheduleSpec newSchedule) {
        return new JobSpec(name, newSchedule, target, params, enabled, misfirePolicy, retryPolicy, delivery, operations,
                keepSigningSecret);
    }

    public JobSpec withDelivery(DeliveryPolicy newDelivery) {
        return new JobSpec(name, schedule, target, params, enabled, misfirePolicy, retryPolicy, newDelivery, operations,
                keepSigningSecret);
    }
}
