package dev.tickwheel.server.dispatch.webhook;

import java.util.Objects;

/**
 * A webhook call that did not end with a 2xx answer. The message is short, names the URL and is meant to be stored
 * as the instance's error, for example {@code webhook http://h/p answered HTTP 503: busy} or
 * {@code webhook http://h/p timed out after 10000 ms (no response headers)}.
 *
 * <p>Immutable. It carries no stack trace: it is created on an I/O or timer thread, where a trace says nothing about
 * the call; the {@linkplain #getCause() cause}, when there is one, keeps its own.
 */
public final class WebhookException extends Exception {

    private static final long serialVersionUID = 1L;

    /** Why the call failed, for a retry policy that treats them differently. */
    public enum Reason {
        /** The target answered with a status other than 2xx; see {@link #status()}. */
        HTTP_STATUS,
        /** The whole-call deadline passed. */
        TIMEOUT,
        /** No connection could be made (refused, unknown host, connect timeout, TLS handshake). */
        CONNECT,
        /** The connection broke, or the answer was not valid HTTP. */
        EXCHANGE,
        /** The URL cannot be called; nothing was sent. */
        INVALID_URL,
        /**
         * The outbound guard refused every address of the target as the connection was to be opened; nothing was
         * sent. The message names the address, the host and the refused range.
         */
        REFUSED,
        /** The invoker was closed before the call ended; the target may or may not have received it. */
        CLOSED
    }

    private final Reason reason;
    private final int status;
    private final String responseBody;

    /**
     * @param message      the text to store, naming the URL
     * @param reason       why the call failed
     * @param status       the HTTP status for {@link Reason#HTTP_STATUS}, else 0
     * @param responseBody the start of the response body (at most 8 KiB of it), empty if none
     * @param cause        the underlying failure, or null
     */
    public WebhookException(String message, Reason reason, int status, String responseBody, Throwable cause) {
        super(Objects.requireNonNull(message, "message"), cause, false, false);
        this.reason = Objects.requireNonNull(reason, "reason");
        this.status = status;
        this.responseBody = Objects.requireNonNull(responseBody, "responseBody");
    }

    public Reason reason() {
        return reason;
    }

    /** The HTTP status the target answered with, or 0 if it did not answer. */
    public int status() {
        return status;
    }

    /** The first 8 KiB of the response body, decoded; empty if there was no answer or no body. */
    public String responseBody() {
        return responseBody;
    }
}
