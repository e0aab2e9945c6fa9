package dev.tickwheel.server.dispatch.webhook;

import dev.tickwheel.server.dispatch.JobContext;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.JobOperations;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.time.MisfirePolicy;
import dev.tickwheel.time.ScheduleSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** Jobs, contexts and outcome helpers shared by the webhook tests. */
final class WebhookFixtures {

    static final Instant DUE = Instant.parse("2030-01-02T03:04:05Z");

    private WebhookFixtures() {
    }

    static Job job(String url) {
        return new Job(7, "nightly report", ScheduleSpec.api(), Target.webhook(url), null, true, MisfirePolicy.SKIP,
                RetryPolicy.NONE, DeliveryPolicy.DEFAULT, JobOperations.DEFAULT, null, DUE, DUE, 0);
    }

    /** A job whose calls are signed with {@code secret}. */
    static Job signedJob(String url, String secret) {
        return job(url).withOperations(JobOperations.DEFAULT.withSigningSecret(secret));
    }

    static JobContext context(long instanceId, int attempt) {
        return new JobContext(instanceId, 7, "nightly report", "{\"region\":\"eu\"}", DUE, attempt, 3, 11, null);
    }

    /** Waits (bounded) for the call to fail and returns its WebhookException. */
    static WebhookException failure(CompletableFuture<?> call) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> call.get(30, TimeUnit.SECONDS));
        return assertInstanceOf(WebhookException.class, e.getCause());
    }

    /** Waits (bounded) for the call to succeed. */
    static void success(CompletableFuture<?> call) throws Exception {
        call.get(30, TimeUnit.SECONDS);
    }

    /** Milliseconds from {@code startNanos} until the call completed (measured when it completed). */
    static long completionMs(CompletableFuture<?> call, long startNanos) throws Exception {
        CompletableFuture<Long> at = call.handle((v, t) -> System.nanoTime());
        return Duration.ofNanos(at.get(30, TimeUnit.SECONDS) - startNanos).toMillis();
    }
}
