package dev.tickwheel.server.api;

import java.io.InputStream;

/**
 * One HTTP request and its answer, as the API's routes see them, whatever serves them: Javalin in the standalone
 * server ({@code ApiServer}), or the application's own servlet container when the Spring Boot starter mounts the API
 * under a path. Paths are those below the mount ({@code /api/jobs}, never {@code /tickwheel/api/jobs}).
 *
 * <p>Not thread-safe: one exchange belongs to the thread answering it.
 */
public interface ApiExchange {

    /** {@code GET}, {@code POST}, ...: upper case. */
    String method();

    /** The request path below the mount, starting with {@code /}. */
    String path();

    /** The value of a {@code {name}} of the matched route's path, decoded. */
    String pathParam(String name);

    /** The first value of a query parameter, or null. */
    String queryParam(String name);

    /** A request header, or null. */
    String header(String name);

    /** The declared body length, or -1 if the request did not declare one. */
    long contentLength();

    /** The request body, read at most once. */
    InputStream bodyInputStream();

    /** Sets the answer's status; default 200. */
    ApiExchange status(int status);

    /** Sets an answer header. */
    ApiExchange header(String name, String value);

    /** Sets the answer's content type. */
    ApiExchange contentType(String contentType);

    /** Writes {@code body} as the answer. */
    void result(byte[] body);

    /** Writes {@code body} as the answer's text (UTF-8). */
    default void result(String body) {
        result(body.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** Writes {@code value} as the answer's JSON ({@link ApiJson}'s rules), content type {@code application/json}. */
    void json(Object value);
}
