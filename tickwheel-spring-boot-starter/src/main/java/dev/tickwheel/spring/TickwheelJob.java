package dev.tickwheel.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares a job that runs this bean method: created at start-up, or brought up to date by {@link #name()}, before
 * scheduling begins, on every member (one job of the name exists). The method is the job's handler (as with
 * {@link TickwheelHandler}, under the job's name unless a {@code @TickwheelHandler} names it). Exactly one of
 * {@link #cron()} and {@link #fixedRateMs()} is given. For other settings (retries, delivery, params) declare a
 * {@link JobDefinition} bean instead.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface TickwheelJob {

    /** The job's name: its identity across restarts. */
    String name();

    /** A Quartz-style cron expression with seconds ({@code 0 0/5 * * * ?}); empty for a fixed rate. */
    String cron() default "";

    /** Time zone of the cron expression (default UTC). */
    String zone() default "UTC";

    /** Period of a fixed-rate job in milliseconds; 0 for a cron job. */
    long fixedRateMs() default 0;
}
