package dev.tickwheel.server.api;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/**
 * The one Jackson configuration of the API: ISO-8601 instants, unknown fields refused (a typo such as
 * {@code "maxAtempts"} must not be ignored silently), fractions refused where integers are expected.
 *
 * <p>Thread-safe (the returned mapper is configured before it is shared).
 */
public final class ApiJson {

    private ApiJson() {
    }

    /** A new mapper with the API's settings. */
    public static ObjectMapper newMapper() {
        return new ObjectMapper()
                .registerModule(new JavaTimeModule())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT);
    }
}
