package dev.tickwheel.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tickwheel.server.JobSpec;
import dev.tickwheel.server.api.dto.JobRequest;
import dev.tickwheel.server.api.dto.RetryBody;
import dev.tickwheel.server.api.dto.ScheduleBody;
import dev.tickwheel.server.api.dto.TargetBody;
import dev.tickwheel.server.job.Completion;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.JobOperations;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.ScheduleWindow;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.time.MisfirePolicy;
import dev.tickwheel.time.ScheduleSpec;
import dev.tickwheel.time.TimeExpressionParser;
import java.net.URI;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.BiPredicate;

/**
 * Turns a {@link JobRequest} into a {@link JobSpec}, checking every field except the schedule's values, which the
 * engine's {@link TimeExpressionParser} validates before it writes anything (its errors carry the field, and
 * {@link ErrorResponder} maps them to {@code schedule.<field>}).
 *
 * <p>Thread-safe (immutable).
 */
final class JobRequestParser {

    // The domain's limits, checked here first so that the 400 names the request's field.
    static final int MAX_NAME_LENGTH = dev.tickwheel.server.job.Job.MAX_NAME_LENGTH;
    static final int MAX_ATTEMPTS = RetryPolicy.MAX_ATTEMPTS;
    static final long MAX_BACKOFF_MS = RetryPolicy.MAX_BACKOFF_MS;

    private final Set<String> handlerNames;
    private final BiPredicate<String, String> calendarExists;
    private final BiPredicate<String, String> poolExists;

    /**
     * @param handlerNames   the handlers a HANDLER target may name
     * @param calendarExists whether a calendar of this name exists in this namespace, for a job's {@code calendar}
     * @param poolExists     whether a pool of this name exists in this namespace, for a job's {@code pool}
     */
    JobRequestParser(Set<String> handlerNames, BiPredicate<String, String> calendarExists,
            BiPredicate<String, String> poolExists) {
        this.handlerNames = Set.copyOf(handlerNames);
        this.calendarExists = calendarExists;
        this.poolExists = poolExists;
    }

    /**
     * The spec of a job of {@code namespace}, whose calendars and pools its {@code calendar} and {@code pool} name.
     *
     * @throws ApiException 400 naming the first field at fault
     */
    JobSpec parse(JobRequest request, String namespace) {
        String name = request.name();
        if (name == null || name.isBlank()) {
            throw name == null ? ApiException.missingField("name")
                    : ApiException.invalidField("name", name, "must not be blank");
        }
        if (name.length() > MAX_NAME_LENGTH) {
            throw ApiException.badField("invalid_field", "name", "field 'name' must be at most " + MAX_NAME_LENGTH
                    + " characters, got " + name.length());
        }
        if (request.schedule() == null) {
            throw ApiException.missingField("schedule");
        }
        if (request.target() == null) {
            throw ApiException.missingField("target");
        }
        ScheduleSpec schedule = schedule(request.schedule());
        if (request.calendar() != null) {
            if (!calendarExists.test(namespace, request.calendar())) {
                throw ApiException.invalidField("calendar", request.calendar(),
                        "must name a calendar created with POST /api/calendars");
            }
            schedule = schedule.withCalendar(request.calendar());
            checkWindow(schedule);
        }
        return new JobSpec(name.trim(), schedule, target(request.target()),
                paramsText(request.params()), request.enabled() == null || request.enabled(),
                misfirePolicy(request.misfirePolicy()), retry(request.retry()),
                delivery(request, pool(request, namespace)),
                operations(request), request.signingSecret() == null);
    }

    /**
     * The job's retention, alert webhook and signing secret. An absent (or null) {@code signingSecret} keeps the
     * stored one on a replace (the API never shows it back, so a client cannot resend it), and {@code ""} removes it.
     */
    private static JobOperations operations(JobRequest request) {
        Integer retentionDays = request.retentionDays();
        if (retentionDays != null && (retentionDays < 1 || retentionDays > JobOperations.MAX_RETENTION_DAYS)) {
            throw ApiException.invalidField("retentionDays", retentionDays, "must be in 1.."
                    + JobOperations.MAX_RETENTION_DAYS + " (omit it for the server's retention-days)");
        }
        String alertUrl = request.alertUrl() == null ? null
                : httpUrl("alertUrl", request.alertUrl(), JobOperations.MAX_ALERT_URL_LENGTH, "invalid_field");
        String secret = request.signingSecret();
        if (secret != null && !secret.isEmpty()) {
            if (secret.length() < JobOperations.MIN_SECRET_LENGTH
                    || secret.length() > JobOperations.MAX_SECRET_LENGTH) {
                throw ApiException.badField("invalid_field", "signingSecret", "field 'signingSecret' must be "
                        + JobOperations.MIN_SECRET_LENGTH + ".." + JobOperations.MAX_SECRET_LENGTH
                        + " characters (\"\" removes the secret), got " + secret.length());
            }
            if (secret.chars().anyMatch(Character::isISOControl)) {
                throw ApiException.badField("invalid_field", "signingSecret",
                        "field 'signingSecret' must not contain control characters");
            }
        }
        return new JobOperations(retentionDays, alertUrl, secret == null || secret.isEmpty() ? null : secret);
    }

    /** The job's pool, which must exist in the job's namespace; null for none. */
    private String pool(JobRequest request, String namespace) {
        String pool = request.pool();
        if (pool != null && !poolExists.test(namespace, pool)) {
            throw ApiException.invalidField("pool", pool, "must name a pool created with POST /api/pools");
        }
        return pool;
    }

    /** A priority of a job or a run, 0..9; null when absent. */
    static Integer priority(Integer priority, String field) {
        if (priority != null && (priority < DeliveryPolicy.MIN_PRIORITY || priority > DeliveryPolicy.MAX_PRIORITY)) {
            throw ApiException.invalidField(field, priority, "must be in " + DeliveryPolicy.MIN_PRIORITY + ".."
                    + DeliveryPolicy.MAX_PRIORITY + " (higher first)");
        }
        return priority;
    }

    private static DeliveryPolicy delivery(JobRequest request, String pool) {
        DeliveryPolicy.Guarantee guarantee = enumField("delivery", request.delivery(), DeliveryPolicy.Guarantee.class,
                DeliveryPolicy.Guarantee.AT_LEAST_ONCE);
        DeliveryPolicy.OverLimit overLimit = enumField("overLimit", request.overLimit(),
                DeliveryPolicy.OverLimit.class, DeliveryPolicy.OverLimit.WAIT);
        long timeoutMs = 0;
        if (request.timeoutMs() != null) {
            timeoutMs = request.timeoutMs();
            if (timeoutMs < 1 || timeoutMs > DeliveryPolicy.MAX_TIMEOUT_MS) {
                throw ApiException.invalidField("timeoutMs", timeoutMs, "must be in 1.." + DeliveryPolicy.MAX_TIMEOUT_MS
                        + " (omit it for the server's default)");
            }
        }
        int maxConcurrent = 0;
        if (request.maxConcurrent() != null) {
            maxConcurrent = request.maxConcurrent();
            if (maxConcurrent < 1 || maxConcurrent > DeliveryPolicy.MAX_CONCURRENT) {
                throw ApiException.invalidField("maxConcurrent", maxConcurrent, "must be in 1.."
                        + DeliveryPolicy.MAX_CONCURRENT + " (omit it for no limit)");
            }
        }
        // WAIT is the documented default, and a job without a limit is never over it: sent explicitly (as generated
        // clients send every default), it means what its absence means. SKIP without a limit would never apply.
        if (overLimit == DeliveryPolicy.OverLimit.SKIP && maxConcurrent == 0 && pool == null) {
            throw ApiException.invalidField("overLimit", request.overLimit(), "SKIP applies only with maxConcurrent"
                    + " or a pool (a job without a limit is never over it; omit overLimit or send WAIT, its default)");
        }
        Integer priority = priority(request.priority(), "priority");
        return new DeliveryPolicy(guarantee, timeoutMs, maxConcurrent, overLimit,
                priority == null ? DeliveryPolicy.DEFAULT_PRIORITY : priority, pool, completion(request));
    }

    /** IMMEDIATE unless asked; CALLBACK with its time-out, only for a WEBHOOK target. */
    private static Completion completion(JobRequest request) {
        Completion.Mode mode = enumField("completion", request.completion(), Completion.Mode.class,
                Completion.Mode.IMMEDIATE);
        Long timeoutMs = request.callbackTimeoutMs();
        if (mode == Completion.Mode.IMMEDIATE) {
            if (timeoutMs != null) {
                throw ApiException.invalidField("callbackTimeoutMs", timeoutMs, "applies only with \"completion\":"
                        + " \"CALLBACK\"");
            }
            return Completion.IMMEDIATE;
        }
        if (!"WEBHOOK".equalsIgnoreCase(request.target().type().trim())) {
            throw ApiException.invalidField("completion", request.completion(), "CALLBACK applies only to WEBHOOK"
                    + " targets (a handler's work is done when its stage completes)");
        }
        long timeout = timeoutMs == null ? Completion.DEFAULT_CALLBACK_TIMEOUT_MS : timeoutMs;
        if (timeout < Completion.MIN_CALLBACK_TIMEOUT_MS || timeout > Completion.MAX_CALLBACK_TIMEOUT_MS) {
            throw ApiException.invalidField("callbackTimeoutMs", timeout, "must be in "
                    + Completion.MIN_CALLBACK_TIMEOUT_MS + ".." + Completion.MAX_CALLBACK_TIMEOUT_MS);
        }
        return Completion.callback(timeout);
    }

    private static <E extends Enum<E>> E enumField(String field, String raw, Class<E> type, E absent) {
        if (raw == null) {
            return absent;
        }
        try {
            return Enum.valueOf(type, raw.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw ApiException.invalidField(field, raw, "must be one of " + Arrays.toString(type.getEnumConstants()));
        }
    }

    static ScheduleSpec schedule(ScheduleBody body) {
        ScheduleSpec spec = new ScheduleSpec(TimeExpressionParser.parseType(body.type()), body.expression(),
                body.zone(), body.periodMs(), body.delayMs(), body.at(), body.jitterMs(),
                body.spread(), body.startAt(), body.endAt(), body.maxRuns(), null);
        checkWindow(spec);
        return spec;
    }

    private static void checkWindow(ScheduleSpec spec) {
        try {
            ScheduleWindow.check(spec);
        } catch (ScheduleWindow.InvalidWindowException e) {
            String field = e.field().equals("calendar") ? "calendar" : "schedule." + e.field();
            throw ApiException.badField("invalid_field", field, e.getMessage());
        }
    }

    private Target target(TargetBody body) {
        if (body.type() == null) {
            throw ApiException.missingField("target.type");
        }
        String type = body.type().trim().toUpperCase(Locale.ROOT);
        switch (type) {
            case "WEBHOOK" -> {
                if (body.name() != null) {
                    throw invalidTarget("target.name", "field 'target.name' does not apply to a WEBHOOK target, got '"
                            + body.name() + "'");
                }
                return Target.webhook(httpUrl("target.url", body.url(), Target.MAX_VALUE_LENGTH, "invalid_target"));
            }
            case "HANDLER" -> {
                if (body.url() != null) {
                    throw invalidTarget("target.url", "field 'target.url' does not apply to a HANDLER target, got '"
                            + body.url() + "'");
                }
                if (body.name() == null || body.name().isBlank()) {
                    throw ApiException.missingField("target.name");
                }
                if (!handlerNames.contains(body.name())) {
                    throw invalidTarget("target.name", "field 'target.name' names no registered handler: '"
                            + body.name()
                            + "' (registered: " + handlerNames.stream().sorted().toList() + ")");
                }
                return Target.handler(body.name());
            }
            default -> throw invalidTarget("target.type", "field 'target.type' must be WEBHOOK or HANDLER, got '"
                    + body.type()
                    + "'");
        }
    }

    /** A required http(s) URL with a host, at most {@code maxLength} characters; 400 with {@code code} naming it. */
    private static String httpUrl(String field, String url, int maxLength, String code) {
        if (url == null || url.isBlank()) {
            throw ApiException.missingField(field);
        }
        if (url.length() > maxLength) {
            throw ApiException.badField(code, field, "field '" + field + "' must be at most " + maxLength
                    + " characters, got " + url.length());
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (java.net.URISyntaxException e) {
            throw ApiException.badField(code, field, "field '" + field + "' is not a valid URI: '" + url + "' ("
                    + e.getReason() + ")");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw ApiException.badField(code, field, "field '" + field + "' must use http or https, got '" + url + "'");
        }
        if (uri.getHost() == null) {
            throw ApiException.badField(code, field, "field '" + field + "' must be an absolute URL with a host, got '"
                    + url + "'");
        }
        return url;
    }

    private static MisfirePolicy misfirePolicy(String raw) {
        if (raw == null) {
            return MisfirePolicy.FIRE_ONCE_NOW;
        }
        try {
            return MisfirePolicy.valueOf(raw.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw ApiException.invalidField("misfirePolicy", raw,
                    "must be one of " + Arrays.toString(MisfirePolicy.values()));
        }
    }

    private static RetryPolicy retry(RetryBody body) {
        if (body == null) {
            return RetryPolicy.NONE;
        }
        int attempts = body.maxAttempts() == null ? 1 : body.maxAttempts();
        if (attempts < 1 || attempts > MAX_ATTEMPTS) {
            throw ApiException.invalidField("retry.maxAttempts", attempts, "must be in 1.." + MAX_ATTEMPTS);
        }
        RetryPolicy.Jitter jitter = enumField("retry.jitter", body.jitter(), RetryPolicy.Jitter.class,
                RetryPolicy.Jitter.NONE);
        if (body.delaysMs() != null) {
            if (body.backoffMs() != null || body.multiplier() != null || body.maxBackoffMs() != null) {
                throw ApiException.badField("invalid_field", "retry.delaysMs",
                        "retry.delaysMs cannot be combined with backoffMs, multiplier or maxBackoffMs: give a list of"
                                + " delays or a curve");
            }
            List<Long> delays = body.delaysMs();
            if (delays.isEmpty() || delays.size() > MAX_ATTEMPTS - 1) {
                throw ApiException.invalidField("retry.delaysMs", delays.size() + " delays",
                        "must hold 1.." + (MAX_ATTEMPTS - 1) + " delays");
            }
            for (int i = 0; i < delays.size(); i++) {
                Long delay = delays.get(i);
                if (delay == null || delay < 0 || delay > MAX_BACKOFF_MS) {
                    throw ApiException.badField("invalid_field", "retry.delaysMs", "field 'retry.delaysMs' must"
                            + " hold delays in 0.." + MAX_BACKOFF_MS + ", got " + delay + " at index " + i);
                }
            }
            return RetryPolicy.delays(attempts, delays, jitter);
        }
        long backoffMs = body.backoffMs() == null ? 0 : body.backoffMs();
        if (backoffMs < 0 || backoffMs > MAX_BACKOFF_MS) {
            throw ApiException.invalidField("retry.backoffMs", backoffMs, "must be in 0.." + MAX_BACKOFF_MS);
        }
        double multiplier = body.multiplier() == null ? 1 : body.multiplier();
        if (!(multiplier >= 1 && multiplier <= RetryPolicy.MAX_MULTIPLIER)) {
            throw ApiException.invalidField("retry.multiplier", multiplier,
                    "must be in 1.." + (int) RetryPolicy.MAX_MULTIPLIER);
        }
        long maxBackoffMs = body.maxBackoffMs() == null ? MAX_BACKOFF_MS : body.maxBackoffMs();
        if (maxBackoffMs < backoffMs || maxBackoffMs > MAX_BACKOFF_MS) {
            throw ApiException.invalidField("retry.maxBackoffMs", maxBackoffMs,
                    "must be in backoffMs.." + MAX_BACKOFF_MS + " (backoffMs is " + backoffMs + ")");
        }
        return RetryPolicy.exponential(attempts, backoffMs, multiplier, maxBackoffMs, jitter);
    }

    /** Any JSON value is stored as its JSON text; absent or null means no params. */
    static String paramsText(JsonNode params) {
        return params == null || params.isNull() || params.isMissingNode() ? null : params.toString();
    }

    private static ApiException invalidTarget(String field, String message) {
        return ApiException.badField("invalid_target", field, message);
    }
}
