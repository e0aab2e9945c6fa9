package dev.tickwheel.server.job;

import dev.tickwheel.time.ScheduleSpec;
import dev.tickwheel.time.MisfirePolicy;
import java.util.Objects;

/** Checks shared by {@link NewJob} and {@link Job}, so both refuse the same bad input with the same message. */
final class JobFields {

    /** Longest job name the store accepts; matches the column width. */
    static final int MAX_NAME_LENGTH = Job.MAX_NAME_LENGTH;

    private JobFields() {
    }

    static void check(long id, String name, ScheduleSpec schedule, Target target, MisfirePolicy misfirePolicy,
            RetryPolicy retryPolicy, DeliveryPolicy delivery, JobOperations operations, String params) {
        checkParams(params);
        if (id <= 0) {
            throw new IllegalArgumentException("id must be positive: " + id);
        }
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank: " + name);
        }
        if (name.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("name must not contain the NUL character (U+0000), which PostgreSQL"
                    + " cannot store");
        }
        if (name.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException(
                    "name must be at most " + MAX_NAME_LENGTH + " characters: " + name.length());
        }
        Objects.requireNonNull(schedule, "schedule");
        ScheduleWindow.check(schedule);
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(misfirePolicy, "misfirePolicy");
        Objects.requireNonNull(retryPolicy, "retryPolicy");
        Objects.requireNonNull(delivery, "delivery");
        Objects.requireNonNull(operations, "operations");
        if (delivery.completion().byCallback() && target.type() != TargetType.WEBHOOK) {
            throw new IllegalArgumentException("completion CALLBACK applies only to WEBHOOK targets (a handler"
                    + " completes its stage when its work is done): " + target.type());
        }
    }

    /** Parameters of a job or an instance: at most {@link Job#MAX_PARAMS_LENGTH} characters. */
    static void checkParams(String params) {
        if (params != null && params.length() > Job.MAX_PARAMS_LENGTH) {
            throw new IllegalArgumentException("params must be at most " + Job.MAX_PARAMS_LENGTH + " characters: "
                    + params.length());
        }
    }
}
