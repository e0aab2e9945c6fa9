package dev.tickwheel.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tickwheel.client.model.Page;
import dev.tickwheel.client.model.Pool;
import dev.tickwheel.client.model.PoolRequest;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The {@code /api/pools} operations of a {@link TickwheelClient}: pools of concurrency and rate that jobs share.
 * Reads and replaces are retried as {@link TickwheelClient} says; a create and a delete are not (a repeat would answer
 * 409 or 404).
 *
 * <p>Thread-safe.
 */
public final class Pools {

    private final ApiTransport transport;
    private final NamedResourceCalls<Pool> calls;

    Pools(ApiTransport transport, ObjectMapper json) {
        this(transport, new NamedResourceCalls<>(json, "/api/pools", Pool.class));
    }

    private Pools(ApiTransport transport, NamedResourceCalls<Pool> calls) {
        this.transport = transport;
        this.calls = calls;
    }

    /**
     * These operations on the pools of {@code namespace}, named with {@code ?namespace=}: for a token of every
     * namespace, whose calls otherwise read, replace and delete those of {@code default} and list every namespace's.
     * A namespace's token reaches its own only (another is a {@link NotFoundException}); a create takes its
     * namespace from the request ({@code inNamespace} there).
     */
    public Pools inNamespace(String namespace) {
        return new Pools(transport, calls.inNamespace(namespace));
    }

    /**
     * {@code POST /api/pools}.
     *
     * @throws ConflictException   if the name is taken ({@code name_taken})
     * @throws ValidationException naming the field at fault, e.g. {@code maxConcurrent} for a pool with neither limit
     */
    public Pool create(PoolRequest pool) {
        return transport.call(calls.create(pool));
    }

    public CompletableFuture<Pool> createAsync(PoolRequest pool) {
        return transport.send(calls.create(pool));
    }

    /**
     * {@code PUT /api/pools/{name}}: replaces the pool's limits, both of them ({@code pool}'s name must be
     * {@code name}); the member that dispatches the pool applies them within 30 s. Retried: a repeat writes the same.
     *
     * @throws NotFoundException if there is none of that name
     */
    public Pool replace(String name, PoolRequest pool) {
        return transport.call(calls.replace(name, pool));
    }

    public CompletableFuture<Pool> replaceAsync(String name, PoolRequest pool) {
        return transport.send(calls.replace(name, pool));
    }

    /** {@code GET /api/pools}: the token's namespace's pools (a token of every namespace: all), by name. */
    public List<Pool> list() {
        return transport.call(calls.list()).items();
    }

    public CompletableFuture<List<Pool>> listAsync() {
        return transport.send(calls.list()).thenApply(Page::items);
    }

    /** {@code GET /api/pools/{name}}. @throws NotFoundException if there is none of that name */
    public Pool get(String name) {
        return transport.call(calls.get(name));
    }

    public CompletableFuture<Pool> getAsync(String name) {
        return transport.send(calls.get(name));
    }

    /** {@code DELETE /api/pools/{name}}. @throws ConflictException while a job names it ({@code pool_in_use}) */
    public void delete(String name) {
        transport.call(calls.delete(name));
    }

    public CompletableFuture<Void> deleteAsync(String name) {
        return transport.send(calls.delete(name));
    }
}
