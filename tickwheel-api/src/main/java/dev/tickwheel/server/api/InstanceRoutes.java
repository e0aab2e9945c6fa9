package dev.tickwheel.server.api;

import dev.tickwheel.server.InstanceService;
import dev.tickwheel.server.RunSpec;
import dev.tickwheel.server.api.dto.CancelAllRequest;
import dev.tickwheel.server.api.dto.CancelAllResponse;
import dev.tickwheel.server.api.dto.CancelResponse;
import dev.tickwheel.server.api.dto.RerunAllRequest;
import dev.tickwheel.server.api.dto.RerunAllResponse;
import dev.tickwheel.server.api.dto.RerunRequest;
import dev.tickwheel.server.api.dto.RescheduleRequest;
import dev.tickwheel.server.api.dto.RescheduleResponse;
import dev.tickwheel.server.api.dto.PageResponse;
import dev.tickwheel.server.instance.CancelOutcome;
import dev.tickwheel.server.instance.CancelResult;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceHistory;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.instance.RescheduleOutcome;
import dev.tickwheel.server.instance.RunKeys;
import dev.tickwheel.server.instance.RunWrite;
import dev.tickwheel.server.store.Page;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;

/**
 * Handlers of {@code /api/instances…} and of {@code /api/jobs/{id}/runs/{key}…}: read one (by ID or by its job and
 * key) with its attempts, list a page newest first, cancel one or many, reschedule.
 *
 * <p>Thread-safe (immutable; the service is thread-safe).
 */
final class InstanceRoutes {

    private final InstanceService instances;
    private final Scopes scopes;
    private final JsonBodyReader bodies;
    private final ApiViews views;
    private final QueryParams query = new QueryParams();

    InstanceRoutes(InstanceService instances, Scopes scopes, JsonBodyReader bodies, ApiViews views) {
        this.instances = instances;
        this.scopes = scopes;
        this.bodies = bodies;
        this.views = views;
    }

    /** One instance with its job's name and its attempts. */
    void get(ApiExchange ctx) {
        long id = instanceId(ctx);
        InstanceHistory history = scopes.requireInstance(ctx, id, true).orElseThrow(() -> notFound(id));
        long jobId = history.instance().jobId();
        ctx.json(views.instance(history, instances.jobNames(List.of(jobId)).get(jobId)));
    }

    /**
     * Instances newest first, filtered by job (and key within it), status and creation time; the page's job names in
     * one query.
     */
    void list(ApiExchange ctx) {
        Long jobId = RequestIds.queryId("jobId", ctx.queryParam("jobId"));
        InstanceStatus status = query.status(ctx);
        Instant from = query.instant(ctx, "from");
        Instant to = query.instant(ctx, "to");
        if (from != null && to != null && from.isAfter(to)) {
            throw ApiException.invalidParameter("from", "must not be after 'to', got '" + ctx.queryParam("from")
                    + "' and '" + ctx.queryParam("to") + "'");
        }
        int limit = query.limit(ctx);
        Long cursor = PageCursors.decodeInstance(ctx.queryParam("cursor"));
        String key = ctx.queryParam("key");
        if (key != null) {
            String problem = RunKeys.problem(key);
            if (problem != null) {
                throw ApiException.invalidParameter("key", problem);
            }
            if (jobId == null) {
                throw ApiException.invalidParameter("key", "needs 'jobId': a key is unique within its job");
            }
        }
        String namespace = scopes.listedNamespace(ctx);
        if (jobId != null) {
            scopes.requireJob(ctx, jobId);
        }
        Page<Instance, Long> page = key == null ? instances.list(jobId, status, from, to, cursor, limit, namespace)
                : byKey(jobId, key, status, from, to, cursor);
        Map<Long, String> names = instances.jobNames(page.items().stream().map(Instance::jobId).distinct().toList());
        ctx.json(new PageResponse<>(page.items().stream().map(i -> views.instance(i, names.get(i.jobId()))).toList(),
                page.nextCursor().map(PageCursors::encodeInstance).orElse(null)));
    }

    /**
     * The history filtered by a key: the one instance the key names among the job's, if the other filters let it
     * through (a page of at most one, read through the run-key index).
     */
    private Page<Instance, Long> byKey(long jobId, String key, InstanceStatus status, Instant from, Instant to,
                                       Long cursor) {
        List<Instance> match = instances.findByKey(jobId, key)
                .filter(i -> status == null || i.status() == status)
                .filter(i -> from == null || !i.createdAt().isBefore(from))
                .filter(i -> to == null || i.createdAt().isBefore(to))
                .filter(i -> cursor == null || i.id() < cursor)
                .stream().toList();
        return new Page<>(match, Optional.empty());
    }

    /** 200 CANCELLED, 409 ALREADY_DISPATCHED or ALREADY_FINISHED, 404 unknown. */
    void cancel(ApiExchange ctx) {
        long id = instanceId(ctx);
        scopes.requireInstance(ctx, id, false);
        answerCancel(ctx, instances.cancel(id));
    }

    /** {@link #cancel} of the instance that {@code {key}} names among job {@code {id}}'s. */
    void cancelByKey(ApiExchange ctx) {
        long jobId = jobId(ctx);
        String key = runKey(ctx);
        answerCancel(ctx, instances.cancelByKey(jobId, key).orElseThrow(() -> keyNotFound(jobId, key)));
    }

    private static void answerCancel(ApiExchange ctx, CancelResult result) {
        if (result.outcome() == CancelOutcome.UNKNOWN) {
            throw notFound(result.instanceId());
        }
        ctx.status(result.outcome() == CancelOutcome.CANCELLED ? 200 : 409).json(cancelResponse(result));
    }

    private static CancelResponse cancelResponse(CancelResult result) {
        String outcome = result.outcome() == CancelOutcome.UNKNOWN ? "NOT_FOUND" : result.outcome().name();
        return new CancelResponse(outcome, Long.toString(result.instanceId()),
                result.status() == null ? null : result.status().name());
    }

    /** Up to 1 000 cancels in one transaction, one outcome per ID in order; always 200 (each item says). */
    void cancelAll(ApiExchange ctx) {
        CancelAllRequest request = bodies.read(ctx, CancelAllRequest.class, true, JsonBodyReader.MAX_BATCH_BODY_BYTES);
        if (request.ids() == null) {
            throw ApiException.missingField("ids");
        }
        int count = request.ids().size();
        if (count == 0 || count > InstanceService.MAX_CANCELS_PER_CALL) {
            throw ApiException.invalidField("ids", count + " items", "must have 1.."
                    + InstanceService.MAX_CANCELS_PER_CALL + " items");
        }
        for (int i = 0; i < count; i++) {
            Long id = request.ids().get(i);
            if (id == null || id <= 0) {
                throw ApiException.invalidField("ids[" + i + "]", id, "must be a positive instance ID");
            }
        }
        List<CancelResult> results = cancelReachable(ctx, request.ids());
        ctx.json(new CancelAllResponse(results.stream().map(InstanceRoutes::cancelResponse).toList()));
    }

    /**
     * {@link InstanceService#cancelAll} of the ids the caller reaches; the others are answered NOT_FOUND, in their
     * place, as ids that do not exist are.
     */
    private List<CancelResult> cancelReachable(ApiExchange ctx, List<Long> ids) {
        if (CallerExchange.caller(ctx).namespace() == null) {
            return instances.cancelAll(ids);
        }
        Set<Long> reachableIds = scopes.reachableInstances(ctx, ids);
        List<Long> reachable = ids.stream().filter(reachableIds::contains).toList();
        Map<Long, CancelResult> cancelled = new java.util.HashMap<>();
        if (!reachable.isEmpty()) {
            instances.cancelAll(reachable).forEach(r -> cancelled.putIfAbsent(r.instanceId(), r));
        }
        return ids.stream().map(id -> cancelled.getOrDefault(id, CancelResult.unknown(id))).toList();
    }

    /**
     * A finished instance run again: 201 with {@code "created": true}, or 200 with {@code "created": false} when the
     * rerun's key (by default {@code rerun-of-<id>}) names one already; 404 unknown; 409 {@code not_finished}.
     */
    void rerun(ApiExchange ctx) {
        long id = instanceId(ctx);
        scopes.requireInstance(ctx, id, false);
        RerunRequest request = bodies.read(ctx, RerunRequest.class, false);
        String key = request == null ? null : request.key();
        String problem = key == null ? null : RunKeys.callerProblem(key);
        if (problem != null) {
            throw ApiException.badField("invalid_field", "key", problem);
        }
        RunWrite written;
        try {
            written = instances.rerun(id, key);
        } catch (NoSuchElementException e) {
            throw ApiException.notFound(e.getMessage());
        } catch (IllegalStateException e) {
            throw new ApiException(409, "not_finished", e.getMessage());
        }
        ctx.status(written.created() ? 201 : 200).header("Location", "/api/instances/" + written.instance().id())
                .json(ApiViews.run(written));
    }

    /** Every finished instance that matches, rerun (or counted, for a dry run); always 200 with the counts. */
    void rerunAll(ApiExchange ctx) {
        RerunAllRequest read = bodies.read(ctx, RerunAllRequest.class, false);
        RerunAllRequest request = read == null ? new RerunAllRequest(null, null, null, null, null) : read;
        if (request.jobId() != null && request.jobId() <= 0) {
            throw ApiException.invalidField("jobId", request.jobId(), "must be a positive job ID");
        }
        InstanceStatus status = null;
        if (request.status() != null) {
            try {
                status = InstanceStatus.valueOf(request.status());
            } catch (IllegalArgumentException e) {
                status = InstanceStatus.WAITING; // refused below, with the final statuses named
            }
            if (!status.successors().isEmpty()) {
                throw ApiException.invalidField("status", request.status(), "must be a final status: SUCCEEDED,"
                        + " FAILED, INTERRUPTED or CANCELLED");
            }
        }
        if (request.from() != null && request.to() != null && request.from().isAfter(request.to())) {
            throw ApiException.invalidField("from", request.from().toString(), "must not be after 'to'");
        }
        if (request.jobId() != null) {
            scopes.requireJob(ctx, request.jobId());
        }
        InstanceService.RerunAll done = instances.rerunAll(request.jobId(), status, request.from(), request.to(),
                Boolean.TRUE.equals(request.dryRun()), CallerExchange.caller(ctx).namespace());
        ctx.json(new RerunAllResponse(done.matched(), done.created(), done.more()));
    }

    /** The instance {@code {key}} names among job {@code {id}}'s, as {@link #get} shows it. */
    void getByKey(ApiExchange ctx) {
        long jobId = jobId(ctx);
        String key = runKey(ctx);
        Instance instance = instances.findByKey(jobId, key).orElseThrow(() -> keyNotFound(jobId, key));
        InstanceHistory history = instances.history(instance.id()).orElseThrow(() -> keyNotFound(jobId, key));
        ctx.json(views.instance(history, instances.jobNames(List.of(jobId)).get(jobId)));
    }

    /** 200 RESCHEDULED with the new time; 409 ALREADY_DISPATCHED or ALREADY_FINISHED; 404 unknown. */
    void reschedule(ApiExchange ctx) {
        long id = instanceId(ctx);
        scopes.requireInstance(ctx, id, false);
        reschedule(ctx, id);
    }

    /** {@link #reschedule} of the instance that {@code {key}} names among job {@code {id}}'s. */
    void rescheduleByKey(ApiExchange ctx) {
        long jobId = jobId(ctx);
        String key = runKey(ctx);
        Instance instance = instances.findByKey(jobId, key).orElseThrow(() -> keyNotFound(jobId, key));
        reschedule(ctx, instance.id());
    }

    private void reschedule(ApiExchange ctx, long id) {
        RescheduleRequest request = bodies.read(ctx, RescheduleRequest.class, true);
        Long delayMs = request.delayMs();
        if (delayMs == null && request.at() == null) {
            throw ApiException.badField("missing_field", "delayMs", "give 'delayMs' or 'at'");
        }
        RunSpec when = RunTimes.spec(null, delayMs, request.at(), request.params(), null, "");
        RescheduleOutcome outcome;
        try {
            outcome = instances.reschedule(id, when.delayMs(), when.at(), when.params());
        } catch (IllegalArgumentException e) {
            throw ApiException.badField("invalid_field", "at", e.getMessage());
        }
        if (outcome.outcome() == RescheduleOutcome.Kind.UNKNOWN) {
            throw notFound(id);
        }
        Instance instance = outcome.instance();
        ctx.status(outcome.outcome() == RescheduleOutcome.Kind.RESCHEDULED ? 200 : 409)
                .json(new RescheduleResponse(outcome.outcome().name(), Long.toString(id), instance.key(),
                        instance.status().name(), instance.expectedTriggerTime()));
    }

    /** The {@code {key}} path parameter, checked as a run key. */
    private static String runKey(ApiExchange ctx) {
        String key = ctx.pathParam("key");
        String problem = RunKeys.problem(key);
        if (problem != null) {
            throw ApiException.badField("invalid_field", "key", problem);
        }
        return key;
    }

    /** The {@code {id}} path parameter, of a job the caller reaches (else 404). */
    private long jobId(ApiExchange ctx) {
        long id = RequestIds.pathId(ctx.pathParam("id"));
        scopes.requireJob(ctx, id);
        return id;
    }

    private static ApiException keyNotFound(long jobId, String key) {
        return ApiException.notFound("job " + jobId + " has no run with key " + ApiException.quoted(key));
    }

    private static long instanceId(ApiExchange ctx) {
        return RequestIds.pathId(ctx.pathParam("id"));
    }

    private static ApiException notFound(long id) {
        return ApiException.notFound("instance " + id + " does not exist");
    }
}
