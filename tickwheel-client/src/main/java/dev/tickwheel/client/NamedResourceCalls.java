package dev.tickwheel.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.tickwheel.client.model.Page;
import java.util.Collections;
import java.util.Objects;
import java.util.Set;

/**
 * The calls of a collection of resources known by name under one path ({@code /api/calendars}, {@code /api/pools},
 * {@code /api/namespaces}, or {@code /api/workflows} and {@code /api/tokens}, whose "name" in the path is the ID):
 * create (POST, 201), replace (PUT, 200), list (one page), get and delete (204). Reads and replaces may be repeated;
 * a create and a delete may not (a repeat would answer 409 or 404, or make a second resource).
 *
 * <p>Immutable.
 *
 * @param <T> what a resource reads as
 */
final class NamedResourceCalls<T> {

    private final ObjectMapper json;
    private final String collectionPath;
    private final ObjectReader itemReader;
    private final ObjectReader pageReader;
    /** {@code ?namespace=} on every call but a create, or null for none. */
    private final String namespace;

    /** @param collectionPath the collection's path, such as {@code /api/pools} */
    NamedResourceCalls(ObjectMapper json, String collectionPath, Class<T> type) {
        this(json, collectionPath, json.readerFor(type),
                json.readerFor(json.getTypeFactory().constructParametricType(Page.class, type)), null);
    }

    private NamedResourceCalls(ObjectMapper json, String collectionPath, ObjectReader itemReader,
            ObjectReader pageReader, String namespace) {
        this.json = json;
        this.collectionPath = collectionPath;
        this.itemReader = itemReader;
        this.pageReader = pageReader;
        this.namespace = namespace;
    }

    /** These calls naming {@code namespaceName} with {@code ?namespace=} (reads, replaces and deletes). */
    NamedResourceCalls<T> inNamespace(String namespaceName) {
        return new NamedResourceCalls<>(json, collectionPath, itemReader, pageReader,
                Objects.requireNonNull(namespaceName, "namespace"));
    }

    ApiCall<T> create(Object request) {
        return new ApiCall<>("POST", collectionPath, ClientJson.body(json, request), false, Set.of(201), itemReader);
    }

    ApiCall<T> replace(String name, Object request) {
        return new ApiCall<>("PUT", path(name), ClientJson.body(json, request), true, Set.of(200), itemReader);
    }

    ApiCall<Page<T>> list() {
        return ApiCall.get(withNamespace(collectionPath), pageReader);
    }

    ApiCall<T> get(String name) {
        return ApiCall.get(path(name), itemReader);
    }

    ApiCall<Void> delete(String name) {
        return new ApiCall<>("DELETE", path(name), null, false, Set.of(204), null);
    }

    private String path(String name) {
        return withNamespace(collectionPath + "/" + RequestPaths.segment(Objects.requireNonNull(name, "name")));
    }

    /** {@code path} with {@code ?namespace=} when these calls name one. */
    private String withNamespace(String path) {
        return RequestPaths.withQuery(path, Collections.singletonMap("namespace", namespace));
    }
}
