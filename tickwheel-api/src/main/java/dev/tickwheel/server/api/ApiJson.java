package dev.tickwheel.server.api;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.deser.std.StringDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;

/**
 * The one Jackson configuration of the API: ISO-8601 instants, unknown fields refused (a typo such as
 * {@code "maxAtempts"} must not be ignored silently), fractions refused where integers are expected, and booleans only
 * as {@code true} or {@code false}: {@code "enabled": "yes"} (or {@code "true"}, or {@code 1}) is a 400 naming the
 * field, not a guess. Integers may come as JSON strings on purpose (64-bit IDs and times from JavaScript clients).
 * No string field may hold the NUL character ({@code "\u0000"}): PostgreSQL's text columns cannot store it, so it is a
 * 400 naming the field on every store rather than a store failure (503) on one of them.
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
                .registerModule(new SimpleModule("tickwheel-strings").addDeserializer(String.class, new NoNul()))
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT);
    }

    /** Jackson's own string reading, then a refusal of NUL (JsonBodyReader names the field). */
    private static final class NoNul extends StdScalarDeserializer<String> {

        NoNul() {
            super(String.class);
        }

        @Override
        public String deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            String value = StringDeserializer.instance.deserialize(p, ctxt);
            if (value != null && value.indexOf('\0') >= 0) {
                throw JsonMappingException.from(p, "must not contain the NUL character (U+0000)");
            }
            return value;
        }
    }
}
