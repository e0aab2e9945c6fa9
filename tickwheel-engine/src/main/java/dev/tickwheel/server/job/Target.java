package dev.tickwheel.server.job;

import java.net.URI;
import java.util.Objects;

/**
 * Where a job's instances are delivered: a webhook URL or the name of an in-process handler.
 *
 * <p>Immutable.
 *
 * <p>Caveats: a webhook URL is checked for shape (absolute, http or https) only; whether it answers is learned at
 * dispatch time.
 *
 * @param type  the kind of target; never null
 * @param value the URL for {@link TargetType#WEBHOOK}, the handler name for {@link TargetType#HANDLER}
 */
public record Target(TargetType type, String value) {

    /** Longest URL or handler name the store accepts; matches the column width. */
    public static final int MAX_VALUE_LENGTH = 2048;

    public Target {
        Objects.requireNonNull(type, "type");
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("target value must not be blank: " + value);
        }
        if (value.length() > MAX_VALUE_LENGTH) {
            throw new IllegalArgumentException(
                    "target value must be at most " + MAX_VALUE_LENGTH + " characters: " + value.length());
        }
        if (type == TargetType.WEBHOOK) {
            checkWebhookUrl(value);
        }
    }

    /** A webhook target; {@code url} must be an absolute http or https URL. */
    public static Target webhook(String url) {
        return new Target(TargetType.WEBHOOK, url);
    }

    /** An in-process handler target registered under {@code name}. */
    public static Target handler(String name) {
        return new Target(TargetType.HANDLER, name);
    }

    private static void checkWebhookUrl(String url) {
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("webhook url is not a valid URI: " + url, e);
        }
        String scheme = uri.getScheme();
        if (!"http".equalsIgnoreCase(scheme) && !"https".equalsIgnoreCase(scheme) || uri.getHost() == null) {
            throw new IllegalArgumentException("webhook url must be an absolute http or https URL: " + url);
        }
    }
}
