package dev.tickwheel.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.util.Objects;

/**
 * The client's one Jackson configuration: ISO-8601 instants both ways, and lenient reading, so that a newer server's
 * answers still read: unknown fields are ignored, an unknown enum value reads as {@code UNKNOWN}. IDs are JSON strings
 * on the wire and {@code long} in the records (Jackson's default coercion of a numeric string). Request records leave
 * their null fields out ({@code @JsonInclude(NON_NULL)} on each), so the server's default applies.
 *
 * <p>Thread-safe (configured before it is shared).
 */
final class ClientJson {

    private ClientJson() {
    }

    static ObjectMapper newMapper() {
        return new ObjectMapper()
                .registerModule(new JavaTimeModule())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
                .enable(DeserializationFeature.READ_UNKNOWN_ENUM_VALUES_USING_DEFAULT_VALUE);
    }

    /** A request body as JSON bytes. @throws IllegalArgumentException if {@code value} cannot be written as JSON */
    static byte[] body(ObjectMapper json, Object value) {
        try {
            return json.writeValueAsBytes(Objects.requireNonNull(value, "body"));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("the request cannot be written as JSON: " + e.getOriginalMessage(), e);
        }
    }
}
