package dev.tickwheel.spring;

import dev.tickwheel.server.JobSpec;
import java.util.Objects;

/**
 * A job declared in code as a bean: created at start-up, or brought up to date by its name, before scheduling
 * begins (see {@link dev.tickwheel.server.JobService#declare}). Any {@link JobSpec}: a handler or a webhook target,
 * any schedule and policies.
 *
 * <pre>{@code
 * @Bean
 * JobDefinition nightlyReport() {
 *     return new JobDefinition(JobSpec.of("nightly-report", ScheduleSpec.cron("0 0 2 * * ?", "Europe/Berlin"),
 *             Target.handler("report")).withRetry(new RetryPolicy(3, 60_000)));
 * }
 * }</pre>
 */
public record JobDefinition(JobSpec spec) {

    public JobDefinition {
        Objects.requireNonNull(spec, "spec");
        if (spec.name() == null || spec.name().isBlank()) {
            throw new IllegalArgumentException("a declared job needs a name: it is the job's identity");
        }
    }
}
