package dev.tickwheel.server.dispatch.webhook;

import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import dev.tickwheel.server.instance.Instance;
import org.apache.hc.core5.concurrent.FutureCallback;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.EntityDetails;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.nio.AsyncResponseConsumer;
import org.apache.hc.core5.http.nio.CapacityChannel;
import org.apache.hc.core5.http.protocol.HttpContext;

/**
 * Reads a whole response, keeps its status and the first {@link #KEPT_BODY_BYTES} bytes of its body, and discards the
 * rest as it arrives: memory per call is bounded whatever the target sends. The buffer grows with what arrives
 * (from {@value #FIRST_BUFFER_BYTES} bytes), so the usual short or empty answer costs little.
 *
 * <p>The body is drained, not cut off, so that the connection can go back to the pool; the call's deadline bounds
 * how long draining may take. The consumer grants the connection unlimited read capacity
 * ({@link CapacityChannel#update(int) Integer.MAX_VALUE}), as Apache's own {@code DiscardingEntityConsumer} does.
 *
 * <p>The result is handed over in {@link #releaseResources()}, not at the end of the body: Apache calls it after it
 * has returned the connection to the pool ({@code InternalAbstractHttpAsyncClient}: {@code releaseEndpoint()}, then
 * {@code responseConsumer.releaseResources()}). A caller whose completion handler starts the next call at once then
 * finds the connection in the pool, instead of opening another one while this one is still leased.
 *
 * <p>Confined to the I/O thread of its exchange, except {@link #headersReceived()}, which the deadline thread reads,
 * and {@link #releaseResources()}, which a cancelling thread may call.
 */
final class CappedResponseConsumer implements AsyncResponseConsumer<WebhookResponse> {

    /** How much of a response body is kept: a success's output ({@link Instance#MAX_OUTPUT_LENGTH}), an error's text. */
    static final int KEPT_BODY_BYTES = Instance.MAX_OUTPUT_LENGTH;
    private static final int FIRST_BUFFER_BYTES = 256;

    // volatile: written by the I/O thread, read by the deadline thread to say which phase stalled.
    private static final byte[] EMPTY = new byte[0];

    private volatile boolean headersReceived;
    private int status;
    private Charset charset = StandardCharsets.UTF_8;
    private byte[] kept = EMPTY;
    private int keptBytes;
    private boolean cut;
    // volatile: handed over to releaseResources(), which may run on a cancelling thread.
    private volatile FutureCallback<WebhookResponse> resultCallback;
    private volatile WebhookResponse finished;
    // volatile: set by whichever thread settles the call (deadline, cancel), read by the I/O thread.
    private volatile boolean abandoned;

    /**
     * The call is over (deadline or cancel): the next body bytes fail the exchange, which makes Apache close the
     * connection. Its own cancellation does not always close a connection whose body is still trickling in, and a
     * trickle resets the socket timeout that would otherwise end it.
     */
    void abandon() {
        abandoned = true;
    }

    /** Whether the final response head has arrived (the body may still be on its way). */
    boolean headersReceived() {
        return headersReceived;
    }

    @Override
    public void consumeResponse(HttpResponse response, EntityDetails entityDetails, HttpContext context,
                                FutureCallback<WebhookResponse> resultCallback) {
        this.status = response.getCode();
        this.headersReceived = true;
        this.resultCallback = resultCallback;
        if (entityDetails == null) {
            finished = new WebhookResponse(status, "", true);
        } else {
            charset = charsetOf(entityDetails.getContentType());
        }
    }

    @Override
    public void informationResponse(HttpResponse response, HttpContext context) {
        // 1xx: nothing to keep; the final response follows.
    }

    @Override
    public void updateCapacity(CapacityChannel capacityChannel) throws java.io.IOException {
        capacityChannel.update(Integer.MAX_VALUE);
    }

    @Override
    public void consume(ByteBuffer src) throws java.io.IOException {
        if (abandoned) {
            throw new java.io.IOException("the call was abandoned (deadline or cancel); closing its connection");
        }
        int take = Math.min(src.remaining(), KEPT_BODY_BYTES - keptBytes);
        if (take > 0) {
            if (keptBytes + take > kept.length) {
                kept = Arrays.copyOf(kept, Math.min(KEPT_BODY_BYTES,
                        Math.max(keptBytes + take, Math.max(FIRST_BUFFER_BYTES, kept.length * 2))));
            }
            src.get(kept, keptBytes, take);
            keptBytes += take;
        }
        if (src.hasRemaining()) {
            cut = true;
        }
        src.position(src.limit()); // the rest is dropped, never copied
    }

    @Override
    public void streamEnd(List<? extends Header> trailers) {
        finished = new WebhookResponse(status, new String(kept, 0, keptBytes, charset), !cut);
    }

    @Override
    public void failed(Exception cause) {
        // The client reports the failure to the call's own callback.
    }

    @Override
    public void releaseResources() {
        FutureCallback<WebhookResponse> callback = resultCallback;
        resultCallback = null;
        WebhookResponse response = finished;
        if (callback != null && response != null) {
            callback.completed(response); // the connection is back in the pool by now
        }
    }

    private static Charset charsetOf(String contentType) {
        if (contentType == null) {
            return StandardCharsets.UTF_8;
        }
        try {
            Charset declared = ContentType.parse(contentType).getCharset();
            return declared != null ? declared : StandardCharsets.UTF_8;
        } catch (IllegalArgumentException unknownCharset) { // UnsupportedCharsetException included
            return StandardCharsets.UTF_8;
        }
    }
}
