package dev.tickwheel.server.api;

/**
 * One route of the API: a method, a path template ({@code /api/jobs/{id}/runs/{key}}: each {@code {name}} one path
 * segment), what it needs of its caller's token, and what answers it. The handler of {@link ApiRoutes#routes()} runs
 * the access check and, for a change, the audit trail, around the route's own.
 */
public record ApiRoute(String method, String path, RouteAccess access, Handler handler) {

    /** Answers one exchange; any exception is turned into an error answer by {@link ErrorResponder}. */
    @FunctionalInterface
    public interface Handler {
        void handle(ApiExchange exchange) throws Exception;
    }
}
