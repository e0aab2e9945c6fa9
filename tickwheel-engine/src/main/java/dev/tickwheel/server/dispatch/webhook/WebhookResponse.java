package dev.tickwheel.server.dispatch.webhook;

import java.util.Objects;

/**
 * What a webhook answered: its status and the start of its body.
 *
 * <p>Immutable.
 *
 * @param status     the HTTP status code
 * @param bodyPrefix the first {@link CappedResponseConsumer#KEPT_BODY_BYTES} bytes of the body, decoded; empty if none
 * @param wholeBody  whether {@code bodyPrefix} is the whole body (it was no longer than what is kept)
 */
record WebhookResponse(int status, String bodyPrefix, boolean wholeBody) {

    WebhookResponse {
        Objects.requireNonNull(bodyPrefix, "bodyPrefix");
    }

    boolean isSuccess() {
        return status >= 200 && status <= 299;
    }
}
