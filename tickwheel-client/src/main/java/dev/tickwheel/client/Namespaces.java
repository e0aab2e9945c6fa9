package dev.tickwheel.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tickwheel.client.model.Namespace;
import dev.tickwheel.client.model.Page;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * The {@code /api/namespaces} operations of a {@link TickwheelClient}. A namespace groups one team's jobs and their
 * instances; {@code default} always exists. The list is retried as every read is; a create is not (a repeat after a
 * lost answer would answer 409 {@code name_taken} for a namespace the first attempt made: list to see).
 *
 * <p>Thread-safe.
 */
public final class Namespaces {

    private final ApiTransport transport;
    private final NamedResourceCalls<Namespace> calls;

    Namespaces(ApiTransport transport, ObjectMapper json) {
        this.transport = transport;
        this.calls = new NamedResourceCalls<>(json, "/api/namespaces", Namespace.class);
    }

    /**
     * {@code POST /api/namespaces}: needs an ADMIN token of every namespace.
     *
     * @param name 1..64 lower-case letters, digits and '-' (not first or last)
     * @throws ConflictException      if the name is taken ({@code name_taken})
     * @throws ValidationException    naming {@code name} if it is not a valid name
     * @throws UnauthorizedException  403 for a token that is short of that
     */
    public Namespace create(String name) {
        return transport.call(createCall(name));
    }

    public CompletableFuture<Namespace> createAsync(String name) {
        return transport.send(createCall(name));
    }

    private ApiCall<Namespace> createCall(String name) {
        return calls.create(Map.of("name", Objects.requireNonNull(name, "name")));
    }

    /** {@code GET /api/namespaces}: every namespace by name; a token of one namespace sees its own. */
    public List<Namespace> list() {
        return transport.call(calls.list()).items();
    }

    public CompletableFuture<List<Namespace>> listAsync() {
        return transport.send(calls.list()).thenApply(Page::items);
    }
}
