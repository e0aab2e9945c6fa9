package dev.tickwheel.server.api;

import dev.tickwheel.server.InstanceService;
import dev.tickwheel.server.api.dto.CancelResponse;
import dev.tickwheel.server.api.dto.PageResponse;
import dev.tickwheel.server.instance.CancelOutcome;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceHistory;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.store.Page;
import io.javalin.http.Context;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Handlers of {@code /api/instances…}: read one with its attempts, list a page newest first, cancel.
 *
 * <p>Thread-safe (immutable; the service is thread-safe).
 */
final class InstanceRoutes {

    private final InstanceService instances;
    private final ApiViews views;
    private final QueryParams query = new QueryParams();

    InstanceRoutes(InstanceService instances, ApiViews views) {
        this.instances = instances;
        this.views = views;
    }

    /** One instance with its job's name and its attempts. */
    void get(Context ctx) {
        long id = instanceId(ctx);
        InstanceHistory history = instances.history(id).orElseThrow(() -> notFound(id));
        long jobId = history.instance().jobId();
        ctx.json(views.instance(history, instances.jobNames(List.of(jobId)).get(jobId)));
    }

    /** Instances newest first, filtered by job, status and creation time; the page's job names in one query. */
    void list(Context ctx) {
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
        Page<Instance, Long> page = instances.list(jobId, status, from, to, cursor, limit);
        Map<Long, String> names = instances.jobNames(page.items().stream().map(Instance::jobId).distinct().toList());
        ctx.json(new PageResponse<>(page.items().stream().map(i -> views.instance(i, names.get(i.jobId()))).toList(),
                page.nextCursor().map(PageCursors::encodeInstance).orElse(null)));
    }

    /** 200 CANCELLED, 409 ALREADY_DISPATCHED or ALREADY_FINISHED, 404 unknown. */
    void cancel(Context ctx) {
        long id = instanceId(ctx);
        CancelOutcome outcome = instances.cancel(id);
        if (outcome == CancelOutcome.UNKNOWN) {
            throw notFound(id);
        }
        String status = instances.get(id).map(i -> i.status().name()).orElse(null);
        ctx.status(outcome == CancelOutcome.CANCELLED ? 200 : 409)
                .json(new CancelResponse(outcome.name(), Long.toString(id), status));
    }

    private static long instanceId(Context ctx) {
        return RequestIds.pathId(ctx.pathParam("id"));
    }

    private static ApiException notFound(long id) {
        return ApiException.notFound("instance " + id + " does not exist");
    }
}
