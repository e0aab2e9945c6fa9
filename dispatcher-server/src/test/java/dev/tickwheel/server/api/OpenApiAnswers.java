package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.atlassian.oai.validator.OpenApiInteractionValidator;
import com.atlassian.oai.validator.model.Request;
import com.atlassian.oai.validator.model.SimpleResponse;
import com.atlassian.oai.validator.report.SimpleValidationReportFormat;
import com.atlassian.oai.validator.report.ValidationReport;
import com.atlassian.oai.validator.util.OpenApiLoader;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.tickwheel.fixtures.http.ApiClient;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.parser.core.models.ParseOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Sends requests to a running server and validates each answer against docs/openapi.yaml with Atlassian's
 * swagger-request-validator: a status other than the one expected, a status the spec does not list for the operation,
 * a missing required field, a null where the spec does not allow one or a wrong type is recorded with the validator's
 * report, and {@link #assertNoFailures()} fails the test with all of them.
 *
 * <p>Not thread-safe: one per test (the validator, built once, is shared).
 */
final class OpenApiAnswers {

    private static OpenApiInteractionValidator validator; // guarded by the class: built by the first test that asks

    private final List<String> failures = new ArrayList<>();

    /** Sends the request, checks the status, and records the validator's report if the answer breaks the spec. */
    ApiClient.Reply exchange(ApiClient client, String method, String pathAndQuery, String body, int status) {
        ApiClient.Reply reply = client.send(method, pathAndQuery, body);
        String what = method + " " + pathAndQuery;
        if (reply.status() != status) {
            failures.add(what + ": expected status " + status + ", got " + reply);
        }
        SimpleResponse.Builder response = SimpleResponse.Builder.status(reply.status()).withBody(reply.text());
        if (!reply.contentType().isEmpty()) {
            response.withContentType(reply.contentType());
        }
        String path = pathAndQuery.contains("?") ? pathAndQuery.substring(0, pathAndQuery.indexOf('?')) : pathAndQuery;
        ValidationReport report = validator().validateResponse(path,
                Request.Method.valueOf(method.toUpperCase(Locale.ROOT)), response.build());
        if (report.hasErrors()) {
            failures.add(what + " -> " + reply.status() + ":\n" + SimpleValidationReportFormat.getInstance().apply(report)
                    + "\nbody: " + abbreviated(reply.text()));
        }
        return reply;
    }

    void assertNoFailures() {
        assertTrue(failures.isEmpty(), failures.size() + " answers break docs/openapi.yaml:\n"
                + String.join("\n\n", failures));
    }

    static String readSpec() throws IOException {
        return Files.readString(OpenApiContractTest.openApiFile());
    }

    private static synchronized OpenApiInteractionValidator validator() {
        if (validator == null) {
            try {
                // The validator refuses properties a schema does not declare; merging allOf parts first lets Job
                // (JobRequest's fields plus id and times) pass while a field the spec does not document still fails.
                validator = OpenApiInteractionValidator.createFor(parsedSpec()).build();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return validator;
    }

    /**
     * docs/openapi.yaml as the validator loads it, allOf merged, with the schemas the spec gives no type (AnyValue:
     * any JSON value) left without one. swagger-parser 2.1.22 gives every property without a type {@code type: object}
     * when it merges allOf (its explicitObjectSchema option, from 2.1.30, turns that off), and it does so on the one
     * schema object that every reference to AnyValue shares; untyped again, that object accepts any value, as the
     * spec says.
     */
    private static OpenAPI parsedSpec() throws IOException {
        ParseOptions options = new ParseOptions();
        options.setResolve(true);
        options.setResolveFully(true);
        options.setResolveCombinators(true);
        OpenAPI api = new OpenApiLoader().loadApi(OpenApiInteractionValidator.SpecSource.inline(readSpec()), List.of(),
                options);
        JsonNode documented = new ObjectMapper(new YAMLFactory()).readTree(readSpec()).path("components")
                .path("schemas");
        documented.fieldNames().forEachRemaining(name -> {
            JsonNode schema = documented.get(name);
            if (!schema.has("type") && !schema.has("allOf") && !schema.has("anyOf") && !schema.has("oneOf")) {
                api.getComponents().getSchemas().get(name).setType(null);
            }
        });
        return api;
    }

    private static String abbreviated(String text) {
        return text.length() <= 600 ? text : text.substring(0, 600) + "…";
    }
}
