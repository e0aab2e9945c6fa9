package dev.tickwheel.openapi.check;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The webhook the test jobs call: a JDK HTTP server on loopback that answers 200 and records each call (method, path,
 * headers, JSON body) by the instance it names ({@code Tickwheel-Instance-Id}).
 *
 * <p>Thread-safe: calls arrive on the server's threads and are read by the test's.
 */
final class WebhookSink implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    static final String PATH = "/hook";

    /**
     * One call as received.
     *
     * @param headers first value of each header, names in lower case
     */
    record Call(String method, String path, Map<String, String> headers, JsonNode body) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private final HttpServer server;
    private final ExecutorService threads = Executors.newFixedThreadPool(4);
    private final List<Call> calls = new CopyOnWriteArrayList<>();
    private final Map<String, CompletableFuture<Call>> firstCallByInstance = new ConcurrentHashMap<>();

    WebhookSink() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 50);
        server.setExecutor(threads);
        server.createContext(PATH, this::handle);
        server.start();
    }

    /** The URL a WEBHOOK target names. */
    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + PATH;
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange; InputStream in = exchange.getRequestBody()) {
            Map<String, String> headers = new ConcurrentHashMap<>();
            exchange.getRequestHeaders().forEach((name, values) ->
                    headers.put(name.toLowerCase(Locale.ROOT), values.get(0)));
            Call call = new Call(exchange.getRequestMethod(), exchange.getRequestURI().getPath(), headers,
                    JSON.readTree(in.readAllBytes()));
            calls.add(call);
            String instanceId = call.header("Tickwheel-Instance-Id");
            if (instanceId != null) {
                firstCallByInstance.computeIfAbsent(instanceId, id -> new CompletableFuture<>()).complete(call);
            }
            exchange.sendResponseHeaders(200, -1);
        }
    }

    /** The first call made for {@code instanceId}, waiting for it at most {@code bound}. */
    Call awaitCall(String instanceId, Duration bound) throws InterruptedException {
        try {
            return firstCallByInstance.computeIfAbsent(instanceId, id -> new CompletableFuture<>())
                    .get(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("no webhook call for instance " + instanceId + " within " + bound + "; calls: "
                    + calls, e);
        } catch (ExecutionException e) {
            throw new AssertionError(e);
        }
    }

    /** The calls made for {@code instanceId} so far. */
    List<Call> callsFor(String instanceId) {
        return calls.stream().filter(c -> instanceId.equals(c.header("Tickwheel-Instance-Id"))).toList();
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
