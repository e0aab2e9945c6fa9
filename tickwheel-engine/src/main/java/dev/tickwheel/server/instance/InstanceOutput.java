package dev.tickwheel.server.instance;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import java.io.IOException;

/**
 * What may be kept as an instance's output ({@link Instance#output}): exactly one JSON value, at most
 * {@link Instance#MAX_OUTPUT_LENGTH} characters once stripped of surrounding white space.
 *
 * <p>Stateless; thread-safe.
 */
public final class InstanceOutput {

    private static final JsonFactory JSON = new JsonFactory();

    private InstanceOutput() {
    }

    /** {@code text} stripped, if it is an output; null if it is not (null, blank, not one JSON value, too long). */
    public static String ofOrNull(String text) {
        if (text == null) {
            return null;
        }
        String stripped = text.strip();
        return stripped.length() <= Instance.MAX_OUTPUT_LENGTH && isOneJsonValue(stripped) ? stripped : null;
    }

    /**
     * {@code json} stripped; null stays null.
     *
     * @throws IllegalArgumentException naming what is wrong, if it is not an output
     */
    public static String check(String json) {
        if (json == null) {
            return null;
        }
        String stripped = json.strip();
        if (stripped.length() > Instance.MAX_OUTPUT_LENGTH) {
            throw new IllegalArgumentException("an output must be at most " + Instance.MAX_OUTPUT_LENGTH
                    + " characters of JSON: " + stripped.length());
        }
        if (!isOneJsonValue(stripped)) {
            throw new IllegalArgumentException("an output must be exactly one JSON value: "
                    + (stripped.length() > 80 ? stripped.substring(0, 80) + "…" : stripped));
        }
        return stripped;
    }

    /** Whether {@code text} is exactly one JSON value (of any length): a streaming parse, no tree. */
    public static boolean isOneJsonValue(String text) {
        try (JsonParser parser = JSON.createParser(text)) {
            if (parser.nextToken() == null) {
                return false;
            }
            parser.skipChildren();
            return parser.nextToken() == null;
        } catch (IOException notJson) {
            return false;
        }
    }
}
