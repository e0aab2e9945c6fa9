package dev.tickwheel.server.api;

import io.javalin.http.Context;
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

    void echo(Context ctx) {
        String body = ctx.body();
        if (body.length() > JsonBodyReader.MAX_BODY_BYTES) {
            throw new ApiException(413, "payload_too_large", "the demo echo takes at most "
                    + JsonBodyReader.MAX_BODY_BYTES + " bytes, got " + body.length());
        }
        log.info("demo webhook delivery #{}: {}", deliveries.incrementAndGet(), body);
        ctx.contentType("application/json").result(body.isBlank() ? "{}" : body);
    }
}
