package dev.tickwheel.server.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tickwheel.server.CallbackService;
import dev.tickwheel.server.api.dto.CallbackRequest;
import dev.tickwheel.server.api.dto.CallbackResponse;
import dev.tickwheel.server.instance.Instance;
import java.util.Locale;

/**
 * Handler of {@code POST /api/callbacks/{token}}: where the target of a job completing by callback reports the attempt
 * whose {@code Tickwheel-Callback-Url} it was given. The token in the path is the credential (the route needs no
 * bearer token: the target has none); a job with a signing secret also needs the report signed like its calls.
 *
 * <p>Thread-safe (immutable; the engine's reports are thread-safe).
 */
final class CallbackRoutes {

    /** The path of every callback URL, followed by its token; open to mutating requests without the API token. */
    static final String PATH_PREFIX = "/api/callbacks/";

    private final CallbackService reports;
    private final JsonBodyReader bodies;
    private final ObjectMapper json;

    CallbackRoutes(CallbackService reports, JsonBodyReader bodies, ObjectMapper json) {
        this.reports = reports;
        this.bodies = bodies;
        this.json = json;
    }

    /**
     * 200 with the instance's status once the report is taken; 400 for a bad body; 401 {@code invalid_token} or
     * {@code bad_signature}; 404 for an unknown instance; 409 {@code stale} (the attempt is over: a replay, an earlier
     * attempt, a claim made again) or {@code late} (past the deadline).
     */
    void report(ApiExchange ctx) {
        String token = ctx.pathParam("token");
        JsonBodyReader.Raw<CallbackRequest> raw = bodies.readRaw(ctx, CallbackRequest.class, true);
        CallbackRequest request = raw.value();
        CallbackService.Outcome outcome = outcome(request.outcome());
        if (request.output() != null && outcome != CallbackService.Outcome.SUCCEEDED) {
            throw ApiException.badField("invalid_field", "output", "field 'output' applies only with \"outcome\":"
                    + " \"SUCCEEDED\"");
        }
        if (request.error() != null && outcome != CallbackService.Outcome.FAILED) {
            throw ApiException.invalidField("error", request.error(), "applies only with \"outcome\": \"FAILED\"");
        }
        String output = request.output() == null || request.output().isNull() ? null : text(request.output());
        if (output != null && output.length() > Instance.MAX_OUTPUT_LENGTH) {
            throw ApiException.badField("invalid_field", "output", "field 'output' must be at most "
                    + Instance.MAX_OUTPUT_LENGTH + " characters of JSON, got " + output.length());
        }
        CallbackService.Result result = reports.report(token, new CallbackService.Report(outcome, request.error(),
                output), new CallbackService.Signed(ctx.header(CallbackService.TIMESTAMP_HEADER),
                ctx.header(CallbackService.SIGNATURE_HEADER), raw.bytes()));
        Instance instance = result.instance();
        switch (result.verdict()) {
            case APPLIED -> ctx.json(new CallbackResponse(Long.toString(instance.id()), instance.status().name()));
            case INVALID_TOKEN -> throw new ApiException(401, "invalid_token", "the callback URL's token was not"
                    + " issued by this cluster (report to the exact Tickwheel-Callback-Url of the call)");
            case BAD_SIGNATURE -> throw new ApiException(401, "bad_signature", "the job signs its calls, so a report"
                    + " must be signed the same way: headers " + CallbackService.TIMESTAMP_HEADER + " (within "
                    + CallbackService.SIGNATURE_TOLERANCE.toMinutes() + " minutes of now) and "
                    + CallbackService.SIGNATURE_HEADER + " over the raw body");
            case UNKNOWN_INSTANCE -> throw ApiException.notFound("the instance of this callback URL no longer"
                    + " exists");
            case STALE -> throw new ApiException(409, "stale", "the attempt this callback URL names is over"
                    + " (reported already, retried, or delivered again after a take-over): instance "
                    + instance.id() + " is " + instance.status() + " at attempt " + instance.attempt());
            case LATE -> throw new ApiException(409, "late", "the report came after its deadline "
                    + instance.callbackDeadline() + ": the attempt fails as timed out");
        }
    }

    private static CallbackService.Outcome outcome(String raw) {
        if (raw == null) {
            throw ApiException.missingField("outcome");
        }
        try {
            return CallbackService.Outcome.valueOf(raw.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw ApiException.invalidField("outcome", raw, "must be SUCCEEDED, FAILED or RUNNING");
        }
    }

    private String text(com.fasterxml.jackson.databind.JsonNode output) {
        try {
            return json.writeValueAsString(output);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree read from a request writes back", e);
        }
    }
}
