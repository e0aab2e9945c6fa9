package dev.tickwheel.client.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Duration;
import java.util.Objects;

/**
 * A job's definition: the body of {@code POST /api/jobs} (create) and {@code PUT /api/jobs/{id}} (replace). Null
 * fields are left out of the JSON, so the server's default applies. The server checks every value and answers a
 * {@link dev.tickwheel.client.ValidationException} naming the field; the builder checks only what makes a body at all
 * (name, schedule and target present, no {@code UNKNOWN} enum value).
 *
 * <p>Immutable. Build one with {@link #builder(String, Schedule, Target)}.
 *
 * @param name          1..200 characters
 * @param schedule      when it makes instances
 * @param target        where they go
 * @param params        any value Jackson can write (a {@code Map}, a record, a {@code JsonNode}…), handed to every
 *                      instance; null for none
 * @param enabled       null for the default (true)
 * @param misfirePolicy null for the default (FIRE_ONCE_NOW)
 * @param retry         null for the default (one attempt)
 * @param delivery      null for the default (AT_LEAST_ONCE)
 * @param timeoutMs     whole-call deadline of one attempt, 1..3 600 000; null for the server's
 * @param maxConcurrent 1..100 000 in flight at once across the cluster; null for no limit
 * @param overLimit     with maxConcurrent or a pool: WAIT (default) or SKIP
 * @param retentionDays 1..3650; null for the server's
 * @param alertUrl      http(s) URL of its failure alerts; null for the server's
 * @param signingSecret HMAC-SHA256 key of its webhook calls (16..256 characters), write-only; on a replace null keeps
 *                      the stored secret and {@code ""} removes it
 * @param calendar      CRON and FIXED_RATE: the name of a calendar whose excluded days get no instance; null for none
 * @param priority      0..9, higher first when call slots are short; null for the default (5)
 * @param pool          the name of a pool whose limits the job shares; null for none
 * @param completion    null for the default (IMMEDIATE); CALLBACK: the target reports later (WEBHOOK only)
 * @param callbackTimeoutMs with CALLBACK: how long the report may take after the answer or the last heartbeat,
 *                      1 000..604 800 000; null for the default (an hour)
 * @param namespace     the namespace to create it in (it must exist); null for the token's, or {@code default} for a
 *                      token of every namespace. A job's namespace never changes: on a replace null or its own
 */
@JsonInclude(JsonInclude.Include.NON_NULL) // an absent field takes the server's default
public record JobRequest(String name, Schedule schedule, Target target, Object params, Boolean enabled,
                         MisfirePolicy misfirePolicy, JobRetry retry, Delivery delivery, Long timeoutMs,
                         Integer maxConcurrent, OverLimit overLimit, Integer retentionDays, String alertUrl,
                         String signingSecret, String calendar, Integer priority, String pool, Completion completion,
                         Long callbackTimeoutMs, String namespace) {

    public JobRequest {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank: " + (name == null ? null : "'" + name + "'"));
        }
        Objects.requireNonNull(schedule, "schedule");
        Objects.requireNonNull(target, "target");
        known("schedule.type", schedule.type());
        known("target.type", target.type());
        known("misfirePolicy", misfirePolicy);
        known("delivery", delivery);
        known("overLimit", overLimit);
        known("completion", completion);
    }

    /** A builder of a job named {@code name}, with {@code schedule} and {@code target}; the rest default. */
    public static Builder builder(String name, Schedule schedule, Target target) {
        return new Builder(name, schedule, target);
    }

    private static void known(String field, Enum<?> value) {
        if (value != null && value.name().equals("UNKNOWN")) {
            throw new IllegalArgumentException(field + " must be a value the server knows, got UNKNOWN");
        }
    }

    /**
     * Builds a {@link JobRequest}.
     *
     * <p>Not thread-safe.
     */
    public static final class Builder {
        private final String name;
        private final Schedule schedule;
        private final Target target;
        private Object params;
        private Boolean enabled;
        private MisfirePolicy misfirePolicy;
        private JobRetry retry;
        private Delivery delivery;
        private Long timeoutMs;
        private Integer maxConcurrent;
        private OverLimit overLimit;
        private Integer retentionDays;
        private String alertUrl;
        private String signingSecret;
        private String calendar;
        private Integer priority;
        private String pool;
        private Completion completion;
        private Long callbackTimeoutMs;
        private String namespace;

        private Builder(String name, Schedule schedule, Target target) {
            this.name = name;
            this.schedule = schedule;
            this.target = target;
        }

        /** Any value Jackson can write, handed to every instance. */
        public Builder params(Object params) {
            this.params = params;
            return this;
        }

        public Builder enabled(boolean enabled) {
            this.enabled = enabled;
            return this;
        }

        public Builder misfirePolicy(MisfirePolicy misfirePolicy) {
            this.misfirePolicy = misfirePolicy;
            return this;
        }

        /** The server retries a failed call: {@code maxAttempts} in all, {@code backoff} apart. */
        public Builder retry(int maxAttempts, Duration backoff) {
            this.retry = JobRetry.of(maxAttempts, backoff.toMillis());
            return this;
        }

        /** Any retry policy: a curve or a list of delays ({@link JobRetry#exponential}, {@link JobRetry#delays}). */
        public Builder retry(JobRetry retry) {
            this.retry = retry;
            return this;
        }

        public Builder delivery(Delivery delivery) {
            this.delivery = delivery;
            return this;
        }

        /** The whole-call deadline of one attempt. */
        public Builder timeout(Duration timeout) {
            this.timeoutMs = timeout.toMillis();
            return this;
        }

        /** At most {@code maxConcurrent} instances in flight at once; {@code overLimit} says what the others do. */
        public Builder maxConcurrent(int maxConcurrent, OverLimit overLimit) {
            this.maxConcurrent = maxConcurrent;
            this.overLimit = overLimit;
            return this;
        }

        public Builder retentionDays(int retentionDays) {
            this.retentionDays = retentionDays;
            return this;
        }

        public Builder alertUrl(String alertUrl) {
            this.alertUrl = alertUrl;
            return this;
        }

        /** Signs its webhook calls with {@code secret} (16..256 characters). */
        public Builder signingSecret(String secret) {
            this.signingSecret = Objects.requireNonNull(secret, "secret");
            return this;
        }

        /** On a replace: removes the stored signing secret (sends {@code ""}). */
        public Builder removeSigningSecret() {
            this.signingSecret = "";
            return this;
        }

        public JobRequest build() {
            return new JobRequest(name, schedule, target, params, enabled, misfirePolicy, retry, delivery, timeoutMs,
                    maxConcurrent, overLimit, retentionDays, alertUrl, signingSecret, calendar, priority, pool,
                    completion, callbackTimeoutMs, namespace);
        }

        /**
         * The target finishes later: a 2xx answer only accepts the work, and the target POSTs its outcome to the
         * call's {@code Tickwheel-Callback-Url} (any member takes it) within {@code timeout} of the answer or of its
         * last heartbeat; else the attempt fails as timed out and the retry policy applies. WEBHOOK targets only.
         */
        public Builder completesByCallback(Duration timeout) {
            this.completion = Completion.CALLBACK;
            this.callbackTimeoutMs = timeout.toMillis();
            return this;
        }

        /** 0..9: the order of its instances when call slots are short, higher first (default 5). */
        public Builder priority(int priority) {
            this.priority = priority;
            return this;
        }

        /**
         * The pool (created with {@code client.pools().create}) whose concurrency and rate the job shares;
         * {@code overLimit} says what an instance that finds the pool at a limit does.
         */
        public Builder pool(String name, OverLimit overLimit) {
            this.pool = name;
            this.overLimit = overLimit;
            return this;
        }

        /**
         * The namespace (created with {@code client.namespaces().create}) to create the job in; without it, the
         * token's namespace, or {@code default} for a token of every namespace. A job's namespace never changes.
         */
        public Builder namespace(String namespace) {
            this.namespace = Objects.requireNonNull(namespace, "namespace");
            return this;
        }

        /** The calendar (created with {@code client.calendars().create}) whose excluded days get no instance. */
        public Builder calendar(String name) {
            this.calendar = name;
            return this;
        }
    }
}
