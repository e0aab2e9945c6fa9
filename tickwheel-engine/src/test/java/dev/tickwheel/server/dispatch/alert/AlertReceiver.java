package dev.tickwheel.server.dispatch.alert;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An alert webhook on 127.0.0.1 (the JDK's HttpServer): records each request's headers and raw body; answers with the
 * statuses it was given, in order, then 200.
 *
 * <p>Thread-safe.
 */
final class AlertReceiver implements AutoCloseable {

    /** One request as received: header names in lower case (first value of each), the body's bytes. */
    record Received(Map<String, String> headers, byte[] body) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private final HttpServer server;
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final ConcurrentLinkedQueue<Integer> statuses;

    AlertReceiver(Integer... statuses) throws IOException {
        this.statuses = new ConcurrentLinkedQueue<>(List.of(statuses));
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        server.createContext("/", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            Map<String, String> headers = new TreeMap<>();
            exchange.getRequestHeaders().forEach((name, values) ->
                    headers.put(name.toLowerCase(Locale.ROOT), values.get(0)));
            received.add(new Received(headers, body));
            Integer status = this.statuses.poll();
            exchange.sendResponseHeaders(status == null ? 200 : status, -1);
            exchange.close();
        });
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/alerts";
    }

    List<Received> received() {
        return List.copyOf(received);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
