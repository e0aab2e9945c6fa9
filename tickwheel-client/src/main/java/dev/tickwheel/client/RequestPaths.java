package dev.tickwheel.client;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Builds the path and query of a request: a path segment (a caller's run key) percent-encoded as RFC 3986 wants it,
 * and a query string of the parameters that are set.
 *
 * <p>Immutable (static functions).
 */
final class RequestPaths {

    private RequestPaths() {
    }

    /**
     * {@code value} as one path segment: every byte but the unreserved characters percent-encoded (a space as
     * {@code %20}, a slash as {@code %2F}).
     */
    static String segment(String value) {
        // URLEncoder writes a form value: space as '+', and a literal '+' as %2B, so the swap below is exact.
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20").replace("*", "%2A");
    }

    /** {@code path?name=value&…} of the non-null parameters, in the map's order; {@code path} if none is set. */
    static String withQuery(String path, Map<String, ?> parameters) {
        StringBuilder uri = new StringBuilder(path);
        char separator = '?';
        for (Map.Entry<String, ?> parameter : parameters.entrySet()) {
            if (parameter.getValue() != null) {
                uri.append(separator).append(parameter.getKey()).append('=')
                        .append(URLEncoder.encode(parameter.getValue().toString(), StandardCharsets.UTF_8));
                separator = '&';
            }
        }
        return uri.toString();
    }
}
