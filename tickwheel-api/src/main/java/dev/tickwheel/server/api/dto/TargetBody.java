package dev.tickwheel.server.api.dto;

/**
 * Where instances go: {@code {"type": "WEBHOOK", "url": "https://…"}} or {@code {"type": "HANDLER", "name": "…"}}.
 *
 * <p>Immutable.
 *
 * @param type WEBHOOK or HANDLER
 * @param url  absolute http or https URL (WEBHOOK only)
 * @param name registered in-process handler (HANDLER only)
 */
public record TargetBody(String type, String url, String name) {
}
