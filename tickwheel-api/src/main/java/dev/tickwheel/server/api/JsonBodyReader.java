package dev.tickwheel.server.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.stream.Collectors;

/**
 * Reads a request body of at most {@link #MAX_BODY_BYTES} and binds it to a DTO, turning every Jackson failure into
 * an {@link ApiException} that names the field (as a dotted path such as {@code schedule.at}) and the problem.
 *
 * <p>The limit is enforced on the bytes actually read, so a chunked request without {@code Content-Length} cannot
 * get around it.
 *
 * <p>Thread-safe (stateless apart from the shared mapper).
 */
final class JsonBodyReader {

    /** Largest accepted request body: 64 KiB. */
    static final int MAX_BODY_BYTES = 64 * 1024;
    /** Largest accepted body of the batch routes (1 000 runs with their keys and params, 1 000 ids): 4 MiB. */
    static final int MAX_BATCH_BODY_BYTES = 4 * 1024 * 1024;

    private final ObjectMapper json;

    JsonBodyReader(ObjectMapper json) {
        this.json = json;
    }

    /**
     * @return the bound body, or null if the body is empty and {@code required} is false
     * @throws ApiException 400 or 413
     */
    <T> T read(ApiExchange ctx, Class<T> type, boolean required) {
        return read(ctx, type, required, MAX_BODY_BYTES);
    }

    /** {@link #read(ApiExchange, Class, boolean)} with a body of at most {@code maxBytes}. */
    <T> T read(ApiExchange ctx, Class<T> type, boolean required, int maxBytes) {
        return parse(boundedBody(ctx, maxBytes), type, required);
    }

    /** A body read, and the exact bytes it was read from (to check a signature over). */
    record Raw<T>(T value, byte[] bytes) {
    }

    /** {@link #read(ApiExchange, Class, boolean)}, keeping the body's bytes. */
    <T> Raw<T> readRaw(ApiExchange ctx, Class<T> type, boolean required) {
        byte[] body = boundedBody(ctx, MAX_BODY_BYTES);
        return new Raw<>(parse(body, type, required), body);
    }

    private <T> T parse(byte[] body, Class<T> type, boolean required) {
        if (body.length == 0 || new String(body, java.nio.charset.StandardCharsets.UTF_8).isBlank()) {
            if (required) {
                throw ApiException.badRequest("missing_body", "a JSON request body is required");
            }
            return null;
        }
        try {
            T value = json.readValue(body, type);
            if (value == null && required) {
                throw ApiException.badRequest("missing_body", "a JSON object is required, got null");
            }
            return value;
        } catch (UnrecognizedPropertyException e) {
            String field = path(e);
            throw ApiException.badField("unknown_field", field, "field '" + field + "' is not recognized; known"
                    + " fields: " + e.getKnownPropertyIds().stream().map(String::valueOf).sorted().collect(Collectors.toList()));
        } catch (InvalidFormatException e) {
            String field = path(e);
            throw ApiException.badField("invalid_field", field, "field '" + field + "' has an invalid value "
                    + ApiException.quoted(e.getValue()) + ": expected " + expected(e.getTargetType()));
        } catch (MismatchedInputException e) {
            String field = path(e);
            if (field.isEmpty()) {
                // Jackson's own message names the DTO class ("Cannot deserialize value of type `dev...`"): not ours
                // to show.
                throw ApiException.badRequest("malformed_json", "the request body must be a JSON object");
            }
            throw ApiException.badField("invalid_field", field, "field '" + field + "' has the wrong JSON type:"
                    + " expected " + expected(e.getTargetType()));
        } catch (StreamReadException e) {
            throw ApiException.badRequest("malformed_json", "the request body is not valid JSON: "
                    + firstLine(e.getOriginalMessage()) + " at line " + lineOf(e) + ", column " + columnOf(e));
        } catch (JsonMappingException e) {
            String field = path(e);
            throw ApiException.badField("invalid_field", field.isEmpty() ? null : field,
                    "field '" + field + "' cannot be read: " + readable(e.getOriginalMessage()));
        } catch (JsonProcessingException e) {
            throw ApiException.badRequest("malformed_json", "the request body is not valid JSON: "
                    + firstLine(e.getOriginalMessage()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] boundedBody(ApiExchange ctx, int maxBytes) {
        long declared = ctx.contentLength();
        if (declared > maxBytes) {
            throw tooLarge(declared, maxBytes);
        }
        try (InputStream in = ctx.bodyInputStream()) {
            byte[] bytes = in.readNBytes(maxBytes + 1);
            if (bytes.length > maxBytes) {
                throw tooLarge(-1, maxBytes);
            }
            return bytes;
        } catch (IOException e) {
            throw ApiException.badRequest("malformed_json", "the request body could not be read: " + e.getMessage());
        }
    }

    private static ApiException tooLarge(long declared, int maxBytes) {
        return new ApiException(413, "payload_too_large", "the request body must be at most " + maxBytes
                + " bytes, got " + (declared >= 0 ? declared + " bytes" : "more"));
    }

    private static String path(JsonMappingException e) {
        StringBuilder path = new StringBuilder();
        for (JsonMappingException.Reference ref : e.getPath()) {
            if (ref.getFieldName() != null) {
                if (path.length() > 0) {
                    path.append('.');
                }
                path.append(ref.getFieldName());
            } else if (ref.getIndex() >= 0) {
                path.append('[').append(ref.getIndex()).append(']');
            }
        }
        return path.toString();
    }

    private static String expected(Class<?> type) {
        if (type == null) {
            return "another value";
        }
        if (type == java.time.Instant.class) {
            return "an ISO-8601 instant such as \"2030-01-31T12:00:00Z\"";
        }
        if (type == Long.class || type == long.class || type == Integer.class || type == int.class) {
            return "an integer";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        if (type == String.class) {
            return "a string";
        }
        return "a JSON " + (type.isRecord() ? "object" : type.getSimpleName());
    }

    /**
     * The first line of a Jackson message if it names no Java type: Jackson quotes the types it names in backticks
     * ({@code Cannot construct instance of `dev.tickwheel...`}), which an API answer must not show. What remains are
     * our own refusals (ApiJson's NUL check) and limits such as "Numeric value (99999999999) out of range of int".
     */
    private static String readable(String message) {
        String line = firstLine(message);
        return line.isEmpty() || line.indexOf('`') >= 0 ? "the value has the wrong shape or is out of range" : line;
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    private static int lineOf(StreamReadException e) {
        return e.getLocation() == null ? -1 : e.getLocation().getLineNr();
    }

    private static int columnOf(StreamReadException e) {
        return e.getLocation() == null ? -1 : e.getLocation().getColumnNr();
    }
}
