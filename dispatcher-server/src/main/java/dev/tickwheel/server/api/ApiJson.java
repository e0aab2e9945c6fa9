package dev.tickwheel.server.api;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/**
 * The one Jackson configuration of the API: ISO-8601 instants, unknown fields refused (a typo such as
 * {@code "maxAtempts"} must not be ignored silently), fractions refused where integers are expected, and booleans only
 * as {@code true} or {@code false}: {@code "enabled": "yes"} (or {@code "true"}, or {@code 1}) is a 400 naming the
 * field, not a guess. Integers may come as JSON strings on purpose (64-bit IDs and times from JavaScript clients).
 *
 * <p>Thread-safe (the returned mapper is configured before it is shared).
 */
public final class ApiJson {

    private ApiJson() {
    }

    /** A new mapper with the API's settings. */
    public static ObjectMapper newMapper() {
        ObjectMapper mapper = new ObjectMapper();
        mapper.coercionConfigFor(LogicalType.Boolean)
                .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail);
        return mapper
                .registerModule(new JavaTimeModule())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT);
    }
}
