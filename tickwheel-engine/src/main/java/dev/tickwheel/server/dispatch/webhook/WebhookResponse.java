package dev.tickwheel.server.dispatch.webhook;

import java.util.Objects;

/**
 * What a webhook answered: its status and the start of its body.
 *
 * <p>Immutable.
 *
 * @param status     the HTTP status code
 * @param bodyPrefix the first {@link CappedResponseConsumer#KEPT_BODY_BYTES} bytes of the body, decoded; empty if none
 */
record WebhookResponse(int status, String bodyPrefix) {

    WebhookResponse {
        Objects.requireNonNull(bodyPrefix, "bodyPrefix");
    }

    boolean isSuccess() {
        return status >= 200 && status <= 299;
    }
}
