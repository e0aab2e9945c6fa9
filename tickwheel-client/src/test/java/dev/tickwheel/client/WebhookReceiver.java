package dev.tickwheel.client;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A webhook target on loopback (the JDK's {@code com.sun.net.httpserver}): answers 200 to every POST and keeps each
 * call's body and {@code Idempotency-Key} in arrival order.
 *
 * <p>Thread-safe: the calls go through a blocking queue.
 */
final class WebhookReceiver implements AutoCloseable {

    /** One call the receiver got. Each is answered {@code {"received": "<its Idempotency-Key>"}}. */
    record Call(String idempotencyKey, String body) {
    }

    private final HttpServer server;
    private final LinkedBlockingQueue<Call> arrived = new LinkedBlockingQueue<>();
    private final List<Call> taken = new ArrayList<>(); // confined to the test thread

    WebhookReceiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
            try (InputStream in = exchange.getRequestBody()) {
                arrived.add(new Call(key, new String(in.readAllBytes(), StandardCharsets.UTF_8)));
            }
            // A JSON answer, which becomes the instance's output.
            byte[] answer = ("{\"received\": \"" + key + "\"}").getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/hook";
    }

    /** Waits up to {@code bound} for the next call not yet taken. */
    Call next(Duration bound) throws InterruptedException {
        Call call = arrived.poll(bound.toMillis(), TimeUnit.MILLISECONDS);
        if (call == null) {
            throw new AssertionError("no webhook call within " + bound + "; earlier calls: " + taken);
        }
        taken.add(call);
        return call;
    }

    /** Every call so far, taken or not. */
    List<Call> all() {
        List<Call> all = new ArrayList<>(taken);
        all.addAll(arrived);
        return all;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
