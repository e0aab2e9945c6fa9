package dev.tickwheel.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.tickwheel.client.model.Page;
import java.util.Objects;
import java.util.Set;

/**
 * The calls of a collection of resources known by name under one path ({@code /api/calendars}, {@code /api/pools},
 * {@code /api/namespaces}, or {@code /api/workflows} and {@code /api/tokens}, whose "name" in the path is the ID):
 * create (POST, 201), replace (PUT, 200), list (one page), get and delete (204). Reads and replaces may be repeated; a create and a delete may not (a repeat would answer 409
 * or 404, or make a second resource).
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

    /** @param collectionPath the collection's path, such as {@code /api/pools} */
    NamedResourceCalls(ObjectMapper json, String collectionPath, Class<T> type) {
        this.json = json;
        this.collectionPath = collectionPath;
        this.itemReader = json.readerFor(type);
        this.pageReader = json.readerFor(json.getTypeFactory().constructParametricType(Page.class, type));
    }

    ApiCall<T> create(Object request) {
        return new ApiCall<>("POST", collectionPath, ClientJson.body(json, request), false, Set.of(201), itemReader);
    }

    ApiCall<T> replace(String name, Object request) {
        return new ApiCall<>("PUT", path(name), ClientJson.body(json, request), true, Set.of(200), itemReader);
    }

    ApiCall<Page<T>> list() {
        return ApiCall.get(collectionPath, pageReader);
    }

    ApiCall<T> get(String name) {
        return ApiCall.get(path(name), itemReader);
    }

    ApiCall<Void> delete(String name) {
        return new ApiCall<>("DELETE", path(name), null, false, Set.of(204), null);
    }

    private String path(String name) {
        return collectionPath + "/" + RequestPaths.segment(Objects.requireNonNull(name, "name"));
    }
}
