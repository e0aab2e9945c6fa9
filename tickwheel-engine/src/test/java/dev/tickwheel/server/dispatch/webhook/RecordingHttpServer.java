package dev.tickwheel.server.dispatch.webhook;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A well-behaved webhook receiver on 127.0.0.1 on the JDK's HttpServer (an HTTP implementation independent of the
 * client under test). Records every request; answers with a fixed status and body, at once or after a delay. A
 * delayed answer is sent by a scheduler, so any number of requests can wait at once on two threads.
 *
 * <p>Thread-safe.
 */
public final class RecordingHttpServer implements AutoCloseable {

    /**
     * One request as received.
     *
     * @param clientPort the client's port: the same port means the same connection
     * @param bodyBytes  the body exactly as received (what a signature covers)
     */
    public record Received(String method, String protocol, String path, Headers headers, String body, int clientPort,
                    byte[] bodyBytes) {
    }

    private final HttpServer server;
    private final ScheduledExecutorService answerLater = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "recording-server-answer");
        thread.setDaemon(true);
        return thread;
    });
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final AtomicInteger waiting = new AtomicInteger();
    private final AtomicInteger peakWaiting = new AtomicInteger();
    private final AtomicInteger bodiesWritten = new AtomicInteger();

    /** Answers {@code status} with {@code body}, or with no body if {@code body} is null. */
    public RecordingHttpServer(int status, String body) throws IOException {
        this(status, body == null ? null : body.getBytes(StandardCharsets.UTF_8), Duration.ZERO);
    }

    /** Answers {@code status} with {@code body} (null for none) after {@code delay}. */
    RecordingHttpServer(int status, byte[] body, Duration delay) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
        server.createContext("/", exchange -> {
            byte[] request = exchange.getRequestBody().readAllBytes();
            received.add(new Received(exchange.getRequestMethod(), exchange.getProtocol(),
                    exchange.getRequestURI().getPath(), exchange.getRequestHeaders(),
                    new String(request, StandardCharsets.UTF_8), exchange.getRemoteAddress().getPort(), request));
            peakWaiting.accumulateAndGet(waiting.incrementAndGet(), Math::max);
            if (delay.isZero()) {
                answer(exchange, status, body);
            } else {
                answerLater.schedule(() -> answer(exchange, status, body), delay.toMillis(), TimeUnit.MILLISECONDS);
            }
        });
        server.start();
    }

    private void answer(HttpExchange exchange, int status, byte[] body) {
        waiting.decrementAndGet();
        try {
            exchange.sendResponseHeaders(status, body == null ? -1 : body.length);
            if (body != null) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
                bodiesWritten.incrementAndGet();
            }
        } catch (IOException clientGone) {
            // the client may give up; the test asserts on its side
        } finally {
            exchange.close();
        }
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/hook";
    }

    public List<Received> received() {
        return List.copyOf(received);
    }

    /** The most requests that were waiting for their answer at one time. */
    int peakWaiting() {
        return peakWaiting.get();
    }

    /** How many response bodies were written out completely. */
    int bodiesWritten() {
        return bodiesWritten.get();
    }

    @Override
    public void close() {
        server.stop(0);
        answerLater.shutdownNow();
    }
}
