package dev.tickwheel.server.api;

/**
 * One route of the API: a method, a path template ({@code /api/jobs/{id}/runs/{key}}: each {@code {name}} one path
 * segment), and what answers it.
 */
public record ApiRoute(String method, String path, Handler handler) {

    /** Answers one exchange; any exception is turned into an error answer by {@link ErrorResponder}. */
    @FunctionalInterface
    public interface Handler {
        void handle(ApiExchange exchange) throws Exception;
    }
}
