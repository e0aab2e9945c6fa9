package dev.tickwheel.client;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A stub server that holds every answer until the test lets it go: it takes the request, counts it as arrived, and
 * then either writes the whole answer once {@link #release()} is called, or ({@code stallBody}) writes the status, the
 * headers and the first bytes of the body at once and the rest never. The one stub for "an answer still in flight".
 *
 * <p>Thread-safe: latches only.
 */
final class HeldAnswerServer implements AutoCloseable {

    private final HttpServer server;
    private final CountDownLatch arrived = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);

    /** Every path answers 200 with {@code body}. */
    HeldAnswerServer(String body, boolean stallBody) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task, "test-held-answer");
            thread.setDaemon(true);
            return thread;
        }));
        server.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            arrived.countDown();
            try (exchange) {
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                if (stallBody) {
                    exchange.sendResponseHeaders(200, bytes.length);
                    OutputStream out = exchange.getResponseBody();
                    out.write(bytes, 0, bytes.length / 2);
                    out.flush();
                    released.await(); // the rest of the body never comes while the test runs
                } else {
                    released.await();
                    exchange.sendResponseHeaders(200, bytes.length);
                    exchange.getResponseBody().write(bytes);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        server.start();
    }

    String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Waits until the first request has arrived (at most {@code boundMs}); false if it has not. */
    boolean awaitArrival(long boundMs) throws InterruptedException {
        return arrived.await(boundMs, TimeUnit.MILLISECONDS);
    }

    /** Lets the held answers go. */
    void release() {
        released.countDown();
    }

    @Override
    public void close() {
        released.countDown();
        server.stop(0);
    }
}
