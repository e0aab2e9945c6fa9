package dev.tickwheel.server.api;

import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /demo/echo}, registered with {@code --demo} only: the webhook the demo jobs call. It logs the delivery
 * and answers 200 with the body it received, so a newcomer sees dispatches in the log.
 *
 * <p>Thread-safe (the counter is atomic because Jetty calls this from many threads).
 */
final class DemoEcho {

    static final String PATH = "/demo/echo";
    private static final Logger log = LoggerFactory.getLogger(DemoEcho.class);

    private final AtomicLong deliveries = new AtomicLong();

    void echo(ApiExchange ctx) {
        String body;
        try (java.io.InputStream in = ctx.bodyInputStream()) {
            byte[] bytes = in.readNBytes(JsonBodyReader.MAX_BODY_BYTES + 1);
            if (bytes.length > JsonBodyReader.MAX_BODY_BYTES) {
                throw new ApiException(413, "payload_too_large", "the demo echo takes at most "
                        + JsonBodyReader.MAX_BODY_BYTES + " bytes");
            }
            body = new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        log.info("demo webhook delivery #{}: {}", deliveries.incrementAndGet(), body);
        ctx.contentType("application/json").result(body.isBlank() ? "{}" : body);
    }
}
