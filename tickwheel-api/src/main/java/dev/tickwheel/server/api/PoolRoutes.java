package dev.tickwheel.server.api;

import dev.tickwheel.server.PoolService;
import dev.tickwheel.server.api.dto.PageResponse;
import dev.tickwheel.server.api.dto.PoolRequest;
import dev.tickwheel.server.api.dto.PoolResponse;
import dev.tickwheel.server.api.dto.RateBody;
import dev.tickwheel.server.pool.InstancePool;
import dev.tickwheel.server.store.PoolStore;

/**
 * Handlers of {@code /api/pools…}: named pools of concurrency and rate that jobs share. A pool is created once (a
 * second POST of its name is a 409) and replaced with PUT; one that a job names is not deleted (409). Pools belong to
 * a namespace, as calendars do ({@link CalendarRoutes}): names are per namespace, and a job shares the pools of its
 * own namespace only.
 *
 * <p>Thread-safe (immutable; the service is thread-safe).
 */
final class PoolRoutes {

    private final PoolService pools;
    private final Scopes scopes;
    private final JsonBodyReader bodies;

    PoolRoutes(PoolService pools, Scopes scopes, JsonBodyReader bodies) {
        this.pools = pools;
        this.scopes = scopes;
        this.bodies = bodies;
    }

    /** 201 with the pool; 409 {@code name_taken} if the name exists; 400 naming the field at fault. */
    void create(ApiExchange ctx) {
        PoolRequest request = bodies.read(ctx, PoolRequest.class, true);
        if (request.name() == null) {
            throw ApiException.missingField("name");
        }
        String namespace = scopes.namespaceForNew(ctx, request.namespace());
        PoolService.Result result;
        try {
            result = pools.create(namespace, request.name(), maxConcurrent(request), rate(request.rate()));
        } catch (IllegalArgumentException e) {
            throw ApiException.refusedValue(e);
        }
        String location = Scopes.location("/api/pools", namespace, request.name());
        if (result.creation() == PoolService.Creation.NAME_TAKEN) {
            throw new ApiException(409, "name_taken", "a pool named '" + request.name() + "' exists: replace it"
                    + " with PUT " + location, "name");
        }
        ctx.status(201).header("Location", location).json(view(result.pool()));
    }

    /** 200 with the pool as replaced; 404 if unknown; 400 naming the field at fault. */
    void replace(ApiExchange ctx) {
        String name = ctx.pathParam("name");
        PoolRequest request = bodies.read(ctx, PoolRequest.class, true);
        if (request.name() != null && !request.name().equals(name)) {
            throw ApiException.invalidField("name", request.name(), "must be the path's name '" + name + "' (a"
                    + " pool is not renamed) or absent");
        }
        String namespace = scopes.namespaceOfReplaced(ctx, request.namespace(), "pool");
        try {
            ctx.json(view(pools.replace(namespace, name, maxConcurrent(request), rate(request.rate()))
                    .orElseThrow(() -> notFound(name))));
        } catch (IllegalArgumentException e) {
            throw ApiException.refusedValue(e);
        }
    }

    /** The caller's namespace's pools; for a caller of every namespace, all or those of {@code ?namespace=}. */
    void list(ApiExchange ctx) {
        ctx.json(new PageResponse<>(pools.list(scopes.listedNamespace(ctx)).stream().map(PoolRoutes::view).toList(),
                null));
    }

    void get(ApiExchange ctx) {
        String name = ctx.pathParam("name");
        ctx.json(view(pools.get(scopes.namespaceOfNamed(ctx), name).orElseThrow(() -> notFound(name))));
    }

    /** 204; 404 if unknown; 409 {@code pool_in_use} while a job names it. */
    void delete(ApiExchange ctx) {
        String name = ctx.pathParam("name");
        PoolStore.Deletion deletion = pools.delete(scopes.namespaceOfNamed(ctx), name);
        switch (deletion) {
            case DELETED -> ctx.status(204);
            case NOT_FOUND -> throw notFound(name);
            case IN_USE -> throw new ApiException(409, "pool_in_use", "pool '" + name + "' is named by a job: point"
                    + " those jobs at another pool (or none) first", null);
        }
    }

    private static PoolResponse view(InstancePool pool) {
        InstancePool.Rate rate = pool.rate();
        return new PoolResponse(pool.localName(), pool.maxConcurrent(),
                rate == null ? null : new RateBody(rate.permits(), rate.perMs()), pool.createdAt(), pool.namespace());
    }

    private static ApiException notFound(String name) {
        return ApiException.notFound("pool '" + name + "' does not exist");
    }

    /** The request's concurrency limit; absent is 0, no limit. */
    private static int maxConcurrent(PoolRequest request) {
        return request.maxConcurrent() == null ? 0 : request.maxConcurrent();
    }

    /**
     * The request's rate, or null for none.
     *
     * @throws ApiException 400 naming {@code rate.permits} or {@code rate.perMs} if one is missing
     * @throws IllegalArgumentException from {@link InstancePool.Rate} if one is out of range (its field first)
     */
    private static InstancePool.Rate rate(RateBody body) {
        if (body == null) {
            return null;
        }
        if (body.permits() == null) {
            throw ApiException.missingField("rate.permits");
        }
        if (body.perMs() == null) {
            throw ApiException.missingField("rate.perMs");
        }
        return new InstancePool.Rate(body.permits(), body.perMs());
    }
}
