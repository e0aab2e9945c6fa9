package dev.tickwheel.server.dispatch.webhook;

import dev.tickwheel.server.dispatch.guard.RefusedAddressException;
import dev.tickwheel.server.dispatch.webhook.WebhookException.Reason;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.regex.Pattern;
import javax.net.ssl.SSLException;
import org.apache.hc.client5.http.ConnectTimeoutException;
import org.apache.hc.core5.http.ConnectionClosedException;
import org.apache.hc.core5.http.HttpException;

/**
 * Turns each way a webhook call can end badly into a {@link WebhookException} whose message is worth storing as the
 * instance's error: one line, the URL, what happened, no Java class names where the cause has a message.
 *
 * <p>Stateless; thread-safe.
 */
final class WebhookFailures {

    /** Apache's HttpHostConnectException repeats the URL: "Connect to http://h:1 [/10.0.0.1] failed: ...". */
    private static final Pattern CONNECT_TO_PREFIX = Pattern.compile("^Connect to \\S+ (?:\\[[^]]*] )?failed: ");

    /** How much of a non-2xx body goes into the message (the exception keeps up to 8 KiB). */
    static final int BODY_CHARS_IN_MESSAGE = 200;

    private WebhookFailures() {
    }

    /** {@code webhook http://h/p answered HTTP 503: <first 200 characters of the body>} */
    static WebhookException status(String url, WebhookResponse response) {
        String body = oneLine(response.bodyPrefix());
        StringBuilder message = new StringBuilder("webhook ").append(url)
                .append(" answered HTTP ").append(response.status());
        if (!body.isEmpty()) {
            message.append(": ");
            if (body.length() > BODY_CHARS_IN_MESSAGE) {
                message.append(body, 0, BODY_CHARS_IN_MESSAGE).append('…');
            } else {
                message.append(body);
            }
        }
        return new WebhookException(message.toString(), Reason.HTTP_STATUS, response.status(),
                response.bodyPrefix(), null);
    }

    /** {@code webhook http://h/p timed out after 10000 ms (no response headers)} */
    static WebhookException timeout(String url, long timeoutMs, String stalledPhase) {
        return new WebhookException("webhook " + url + " timed out after " + timeoutMs + " ms (" + stalledPhase + ")",
                Reason.TIMEOUT, 0, "", null);
    }

    /** Nothing was sent: the URL cannot be called. */
    static WebhookException invalidUrl(String url, String why) {
        return new WebhookException("webhook " + url + " not called: " + why, Reason.INVALID_URL, 0, "", null);
    }

    /** The invoker was closed before the call ended. */
    static WebhookException closed(String url) {
        return new WebhookException("webhook " + url + " abandoned: the webhook client was closed", Reason.CLOSED, 0,
                "", null);
    }

    /**
     * A connection or protocol failure.
     *
     * @param headersReceived whether the response head had arrived
     * @param retried         whether this was the second attempt, after a stale reused connection
     */
    static WebhookException exchange(String url, Throwable failure, boolean headersReceived, boolean retried) {
        Throwable cause = unwrap(failure);
        Reason reason = Reason.EXCHANGE;
        String what;
        if (cause instanceof RefusedAddressException refused) {
            // Nothing was sent: said the way invalidUrl says it, with the guard's own sentence.
            return new WebhookException("webhook " + url + " not called: " + refused.getMessage(), Reason.REFUSED, 0,
                    "", null);
        } else if (cause instanceof UnknownHostException) {
            reason = Reason.CONNECT;
            what = "could not connect: unknown host " + cause.getMessage();
        } else if (cause instanceof ConnectException
                || cause instanceof ConnectTimeoutException) {
            reason = Reason.CONNECT;
            what = "could not connect: " + innermostMessage(cause);
        } else if (cause instanceof SSLException) {
            reason = Reason.CONNECT;
            what = "could not connect over TLS: " + innermostMessage(cause);
        } else if (cause instanceof ConnectionClosedException) {
            what = headersReceived
                    ? "closed the connection before the response body was complete"
                    : "closed the connection without answering";
        } else if (cause instanceof HttpException) {
            what = "answered with invalid HTTP: " + innermostMessage(cause);
        } else {
            what = "failed: " + innermostMessage(cause);
        }
        String message = "webhook " + url + " " + what + (retried ? " (retried once on a fresh connection)" : "");
        return new WebhookException(message, reason, 0, "", cause);
    }

    private static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /** The message of the deepest cause that has one, first letter lowered; else the class's simple name. */
    static String innermostMessage(Throwable failure) {
        String message = null;
        for (Throwable t = failure; t != null && t.getCause() != t; t = t.getCause()) {
            if (t.getMessage() != null && !t.getMessage().isBlank()) {
                message = t.getMessage();
            }
        }
        if (message == null) {
            return failure.getClass().getSimpleName();
        }
        message = CONNECT_TO_PREFIX.matcher(oneLine(message)).replaceFirst("");
        boolean capitalisedWord = message.length() > 1
                && Character.isUpperCase(message.charAt(0)) && Character.isLowerCase(message.charAt(1));
        return capitalisedWord ? Character.toLowerCase(message.charAt(0)) + message.substring(1) : message;
    }

    /** Runs of white space (line breaks included) become one space, so that a stored error is one line. */
    static String oneLine(String text) {
        return text.strip().replaceAll("\\s+", " ");
    }
}
