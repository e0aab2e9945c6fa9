package dev.tickwheel.server.api;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * {@code GET /openapi.yaml} (docs/openapi.yaml, copied onto the class path by the build) and {@code GET /api-docs}
 * (a page that renders it with Swagger UI). Swagger UI's files come from the {@code org.webjars:swagger-ui} jar and
 * are served under {@code /api-docs/assets/}, so the page works without internet access.
 *
 * <p>Thread-safe (immutable; both documents are read once).
 */
final class ApiDocs {

    static final String SPEC_PATH = "/openapi.yaml";
    static final String PAGE_PATH = "/api-docs";
    private static final String WEBJAR_PROPERTIES = "/META-INF/maven/org.webjars/swagger-ui/pom.properties";

    private final byte[] spec = resource("/openapi/openapi.yaml");
    private final byte[] page = resource("/api-docs/index.html");
    private final String assetsDirectory = "/META-INF/resources/webjars/swagger-ui/" + swaggerUiVersion();

    /** Where Swagger UI's script and style sheet are on the class path, served under {@code /api-docs/assets/}. */
    String assetsDirectory() {
        return assetsDirectory;
    }

    void serveSpec(ApiExchange ctx) {
        ctx.contentType("application/yaml; charset=utf-8").header("Cache-Control", "no-cache").result(spec);
    }

    void servePage(ApiExchange ctx) {
        ctx.contentType("text/html; charset=utf-8").header("Cache-Control", "no-cache").result(page);
    }

    private static String swaggerUiVersion() {
        Properties properties = new Properties();
        try (InputStream in = new ByteArrayInputStream(resource(WEBJAR_PROPERTIES))) {
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return properties.getProperty("version");
    }

    private static byte[] resource(String name) {
        try (InputStream in = ApiDocs.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing from the class path: " + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
