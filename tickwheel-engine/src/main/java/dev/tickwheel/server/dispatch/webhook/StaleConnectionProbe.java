package dev.tickwheel.server.dispatch.webhook;

import org.apache.hc.core5.http.EndpointDetails;
import org.apache.hc.core5.http.HttpRequestInterceptor;
import org.apache.hc.core5.http.protocol.HttpCoreContext;

/**
 * Tells, for one attempt, whether its failure is the signature of a stale keep-alive connection: the request went
 * out on a connection that had carried an earlier exchange, and not one byte of response arrived on that connection
 * after the request started. Only then is a POST safe to send again (the target cannot have begun to answer, and
 * the request carries an Idempotency-Key in case it had been processed anyway).
 *
 * <p>How it sees the connection: {@link #RECORDER} is a request interceptor added last to the client's protocol
 * processor. Apache runs it on the connection's I/O thread when the request head is about to be written
 * ({@code HttpAsyncMainClientExec} → {@code produceRequest}), after the HTTP/1.1 connection has put its
 * {@link EndpointDetails} (live counters of the connection) into the attempt's context. It snapshots the request count
 * and the received byte count then. At failure: a request count above zero before this request means a reused
 * connection (a fresh one starts at zero); an unchanged received byte count means no response byte arrived (a partial
 * status line counts, though no response head was parsed).
 *
 * <p>Thread-safe: written once on the I/O thread; {@link #requestStarted()} is read by the deadline thread.
 */
final class StaleConnectionProbe {

    /** Context attribute under which an attempt's probe is found by {@link #RECORDER}. */
    static final String ATTRIBUTE = "tickwheel.stale-connection-probe";

    /** Snapshots the connection of the attempt whose context holds a probe. Stateless, shared by all calls. */
    static final HttpRequestInterceptor RECORDER = (request, entity, context) -> {
        if (context.getAttribute(ATTRIBUTE) instanceof StaleConnectionProbe probe
                && context instanceof HttpCoreContext coreContext) {
            probe.requestStarting(coreContext.getEndpointDetails());
        }
    };

    // Plain fields: written before the volatile write of connection, read after its volatile read.
    private long requestsBefore;
    private long receivedBytesBefore;
    // volatile: publishes the snapshot; null until the request starts.
    private volatile EndpointDetails connection;

    void requestStarting(EndpointDetails details) {
        if (details == null || connection != null) {
            return;
        }
        requestsBefore = details.getRequestCount();
        receivedBytesBefore = details.getReceivedBytesCount();
        connection = details;
    }

    /** Whether the request reached a connection (it is connected and the request head is being written). */
    boolean requestStarted() {
        return connection != null;
    }

    /** Whether the request went out on a reused connection and nothing at all came back on it. */
    boolean failedSilentlyOnReusedConnection() {
        EndpointDetails details = connection;
        return details != null && requestsBefore > 0 && details.getReceivedBytesCount() == receivedBytesBefore;
    }
}
