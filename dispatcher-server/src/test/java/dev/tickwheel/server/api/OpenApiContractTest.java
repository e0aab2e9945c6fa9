package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.tickwheel.server.TickwheelServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The routes the server registers (with the demo endpoint) are exactly the paths and methods of docs/openapi.yaml. */
class OpenApiContractTest {

    private static final Set<String> METHODS = Set.of("get", "post", "put", "patch", "delete");

    @TempDir
    Path dir;

    @Test
    void registeredRoutes_matchOpenApiPathsAndMethods() throws Exception {
        Set<String> documented = new TreeSet<>();
        JsonNode spec = new ObjectMapper(new YAMLFactory()).readTree(Files.readString(openApiFile()));
        for (Iterator<Map.Entry<String, JsonNode>> paths = spec.get("paths").fields(); paths.hasNext(); ) {
            Map.Entry<String, JsonNode> path = paths.next();
            path.getValue().fieldNames().forEachRemaining(method -> {
                if (METHODS.contains(method)) {
                    documented.add(method.toUpperCase(Locale.ROOT) + " " + path.getKey());
                }
            });
        }
        try (TickwheelServer engine = TickwheelServer.builder()
                .jdbcUrl("jdbc:h2:file:" + dir.resolve("tw").toAbsolutePath()).build().start()) {
            ApiServer api = new ApiServer(engine, new ApiSettings("127.0.0.1", 0, null, true), () -> "", null);
            assertEquals(documented, new TreeSet<>(api.routes()));
        }
    }

    static Path openApiFile() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("docs/openapi.yaml");
            if (Files.exists(candidate)) {
                return candidate;
            }
        }
        throw new AssertionError("docs/openapi.yaml not found above " + Path.of("").toAbsolutePath());
    }
}
