package dev.tickwheel.server.api;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * {@code GET /}: the dashboard's HTML page, read once from the class path ({@code /dashboard/index.html}); its
 * script and style sheet are static files under {@code /assets/}.
 *
 * <p>Thread-safe (immutable).
 */
final class DashboardPage {

    static final String RESOURCE_DIRECTORY = "/dashboard";

    private final byte[] html;

    DashboardPage() {
        try (InputStream in = DashboardPage.class.getResourceAsStream(RESOURCE_DIRECTORY + "/index.html")) {
            if (in == null) {
                throw new IllegalStateException("the dashboard page is missing from the class path: "
                        + RESOURCE_DIRECTORY + "/index.html");
            }
            html = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void serve(ApiExchange ctx) {
        ctx.contentType("text/html; charset=utf-8").header("Cache-Control", "no-cache").result(html);
    }
}
