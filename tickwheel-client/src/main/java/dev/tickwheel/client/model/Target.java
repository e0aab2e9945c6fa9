package dev.tickwheel.client.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Objects;

/**
 * Where a job's instances go: {@code {"type": "WEBHOOK", "url": "https://…"}} or
 * {@code {"type": "HANDLER", "name": "…"}}.
 *
 * <p>Immutable.
 *
 * @param type WEBHOOK or HANDLER
 * @param url  WEBHOOK: an absolute http or https URL
 * @param name HANDLER: a handler registered in the server
 */
@JsonInclude(JsonInclude.Include.NON_NULL) // an absent field takes the server's default
public record Target(TargetType type, String url, String name) {

    public Target {
        Objects.requireNonNull(type, "type");
    }

    /** A webhook: each instance is a POST to {@code url}. */
    public static Target webhook(String url) {
        return new Target(TargetType.WEBHOOK, Objects.requireNonNull(url, "url"), null);
    }

    /** A handler registered in the server under {@code name}. */
    public static Target handler(String name) {
        return new Target(TargetType.HANDLER, null, Objects.requireNonNull(name, "name"));
    }
}
