package dev.tickwheel.server.api;

import dev.tickwheel.server.InstanceService;
import dev.tickwheel.server.api.dto.CancelResponse;
import dev.tickwheel.server.api.dto.PageResponse;
import dev.tickwheel.server.instance.CancelOutcome;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.store.Page;
import io.javalin.http.Context;
import java.util.Arrays;
import java.util.Locale;

/**
 * Handlers of {@code /api/instances…}: read one, list a page, cancel.
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

    void get(Context ctx) {
        long id = instanceId(ctx);
        ctx.json(views.instance(instances.get(id).orElseThrow(() -> notFound(id))));
    }

    void list(Context ctx) {
        String rawJob = ctx.queryParam("jobId");
        Long jobId = rawJob == null || rawJob.isBlank() ? null : RequestIds.parse("query parameter 'jobId'", rawJob);
        InstanceStatus status = status(ctx.queryParam("status"));
        int limit = query.limit(ctx);
        long cursor = RequestIds.cursor(ctx.queryParam("cursor"));
        Page<Instance> page = instances.list(jobId, status, cursor, limit);
        ctx.json(new PageResponse<>(page.items().stream().map(views::instance).toList(),
                page.hasMore() ? Long.toString(page.nextCursor().getAsLong()) : null));
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

    private static InstanceStatus status(String raw) {
        if (raw == null || raw.isBlank()) {
            return null;
        }
        try {
            return InstanceStatus.valueOf(raw.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest("invalid_field", "query parameter 'status' must be one of "
                    + Arrays.toString(InstanceStatus.values()) + ", got '" + raw + "'");
        }
    }

    private static long instanceId(Context ctx) {
        return RequestIds.parse("path parameter 'id'", ctx.pathParam("id"));
    }

    private static ApiException notFound(long id) {
        return ApiException.notFound("instance " + id + " does not exist");
    }
}
