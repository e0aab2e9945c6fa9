package dev.tickwheel.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Every {@code default:} that docs/openapi.yaml documents for what a client sends: the properties of each operation's
 * JSON request body (followed through {@code $ref}, nested objects, arrays and {@code allOf}) and its query
 * parameters. Read from the file, so that a default added to the spec is found without a change here.
 *
 * <p>Immutable once read.
 */
final class OpenApiDefaults {

    private static final Set<String> METHODS = Set.of("get", "post", "put", "patch", "delete");

    /**
     * One documented default.
     *
     * @param operation e.g. {@code POST /api/jobs/{id}/runs}
     * @param where     {@code body} or {@code query}
     * @param field     a body field as a dotted path, {@code []} standing for every item of an array
     *                  ({@code runs[].delayMs}), or a query parameter's name
     * @param value     the documented default
     */
    record Default(String operation, String where, String field, JsonNode value) {
        boolean inBody() {
            return where.equals("body");
        }

        @Override
        public String toString() {
            return operation + " " + where + " " + field + " = " + value;
        }
    }

    private final JsonNode spec;

    private OpenApiDefaults(JsonNode spec) {
        this.spec = spec;
    }

    /** The defaults of docs/openapi.yaml, in the document's order. */
    static List<Default> read() throws IOException {
        String text = Files.readString(OpenApiContractTest.openApiFile());
        return new OpenApiDefaults(new ObjectMapper(new YAMLFactory()).readTree(text)).all();
    }

    private List<Default> all() {
        List<Default> found = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> paths = spec.get("paths").fields(); paths.hasNext(); ) {
            Map.Entry<String, JsonNode> path = paths.next();
            List<JsonNode> pathParameters = list(path.getValue().path("parameters"));
            for (Iterator<Map.Entry<String, JsonNode>> ops = path.getValue().fields(); ops.hasNext(); ) {
                Map.Entry<String, JsonNode> op = ops.next();
                if (!METHODS.contains(op.getKey())) {
                    continue;
                }
                String operation = op.getKey().toUpperCase(Locale.ROOT) + " " + path.getKey();
                List<JsonNode> parameters = new ArrayList<>(pathParameters);
                parameters.addAll(list(op.getValue().path("parameters")));
                for (JsonNode parameter : parameters) {
                    JsonNode resolved = resolve(parameter);
                    JsonNode schema = resolve(resolved.path("schema"));
                    if (resolved.path("in").asText().equals("query") && schema.has("default")) {
                        found.add(new Default(operation, "query", resolved.get("name").asText(),
                                schema.get("default")));
                    }
                }
                JsonNode body = resolve(op.getValue().path("requestBody"))
                        .path("content").path("application/json").path("schema");
                if (!body.isMissingNode()) {
                    walk(operation, body, "", new HashSet<>(), found);
                }
            }
        }
        return found;
    }

    /** Adds the defaults of {@code schema}'s properties, their fields named under {@code prefix}. */
    private void walk(String operation, JsonNode schema, String prefix, Set<String> refsOnPath, List<Default> found) {
        String ref = schema.path("$ref").asText(null);
        if (ref != null && !refsOnPath.add(ref)) {
            return; // a recursive schema: its defaults were found on the first visit
        }
        JsonNode resolved = resolve(schema);
        for (JsonNode part : list(resolved.path("allOf"))) {
            walk(operation, part, prefix, refsOnPath, found);
        }
        if (resolved.has("items")) {
            walk(operation, resolved.get("items"), prefix.isEmpty() ? "[]." : prefix.replaceAll("\\.$", "[]."),
                    refsOnPath, found);
        }
        for (Iterator<Map.Entry<String, JsonNode>> properties = resolved.path("properties").fields();
                properties.hasNext(); ) {
            Map.Entry<String, JsonNode> property = properties.next();
            JsonNode propertySchema = resolve(property.getValue());
            String field = prefix + property.getKey();
            if (propertySchema.has("default")) {
                found.add(new Default(operation, "body", field, propertySchema.get("default")));
            }
            walk(operation, property.getValue(), field + ".", refsOnPath, found);
        }
        if (ref != null) {
            refsOnPath.remove(ref);
        }
    }

    /** The node a local {@code $ref} points at, or the node itself. */
    private JsonNode resolve(JsonNode node) {
        while (node.has("$ref")) {
            String ref = node.get("$ref").asText();
            if (!ref.startsWith("#/")) {
                throw new AssertionError("only local references are followed, got " + ref);
            }
            node = spec.at(ref.substring(1));
        }
        return node;
    }

    private static List<JsonNode> list(JsonNode array) {
        List<JsonNode> items = new ArrayList<>();
        array.forEach(items::add);
        return items;
    }
}
