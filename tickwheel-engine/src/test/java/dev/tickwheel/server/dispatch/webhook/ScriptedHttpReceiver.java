package dev.tickwheel.server.dispatch.webhook;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP/1.1 receiver on 127.0.0.1 written on raw sockets, so that it can misbehave: each request is answered by a
 * script that may answer properly, close without answering, send half an answer, or stall. It records every request
 * (with the connection it came on) and notices when the client closes a connection.
 *
 * <p>One platform thread per connection. Thread-safe.
 */
final class ScriptedHttpReceiver implements AutoCloseable {

    /** What the connection does after the script ran. */
    enum After {
        /** Wait for the next request (closing the connection if it stays idle longer than the idle close). */
        KEEP_ALIVE,
        /** Close the connection now. */
        CLOSE,
        /** Send nothing more; keep reading until the client closes the connection. */
        STALL
    }

    /** Answers one request by writing to {@code out} (or not). */
    interface Script {
        After answer(Request request, OutputStream out) throws IOException;
    }

    /**
     * One request as received.
     *
     * @param connection        1 for the first connection accepted, 2 for the next, ...
     * @param indexOnConnection 1 for the first request on its connection, ...
     * @param headers           header names in lower case
     */
    record Request(int connection, int indexOnConnection, String requestLine, Map<String, String> headers,
                   String body) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    static final String OK = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";

    /** Answers 200 with an empty body and keeps the connection. */
    static After ok(Request request, OutputStream out) throws IOException {
        return write(out, OK, After.KEEP_ALIVE);
    }

    static After write(OutputStream out, String text, After after) throws IOException {
        out.write(text.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        return after;
    }

    private final ServerSocket server;
    private final Script script;
    private final int idleCloseMs;
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private final Map<Integer, CompletableFuture<Void>> clientClosed = new ConcurrentHashMap<>();
    private final AtomicInteger connections = new AtomicInteger();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    /** A receiver that keeps idle connections open. */
    ScriptedHttpReceiver(Script script) throws IOException {
        this(script, Duration.ZERO);
    }

    /**
     * @param idleClose close a connection that waits this long for its next request (as Node.js does after 5 s);
     *                  zero for never
     */
    ScriptedHttpReceiver(Script script, Duration idleClose) throws IOException {
        this.script = script;
        this.idleCloseMs = (int) idleClose.toMillis();
        this.server = new ServerSocket(0, 1024, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::acceptLoop, "receiver-accept-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getLocalPort() + "/hook";
    }

    List<Request> requests() {
        return List.copyOf(requests);
    }

    int connections() {
        return connections.get();
    }

    /** Completes when the client closes (or resets) the given connection. */
    CompletableFuture<Void> clientClosed(int connection) {
        return clientClosed.computeIfAbsent(connection, c -> new CompletableFuture<>());
    }

    /** Waits for the client to close the given connection; false if it did not within {@code bound}. */
    boolean awaitClientClosed(int connection, Duration bound) {
        try {
            clientClosed(connection).get(bound.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (Exception notClosed) {
            return false;
        }
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                sockets.add(socket);
                int connection = connections.incrementAndGet();
                Thread handler = new Thread(() -> serve(socket, connection),
                        "receiver-" + server.getLocalPort() + "-conn-" + connection);
                handler.setDaemon(true);
                handler.start();
            } catch (IOException closed) {
                return;
            }
        }
    }

    private void serve(Socket socket, int connection) {
        try (socket) {
            InputStream in = new BufferedInputStream(socket.getInputStream());
            OutputStream out = socket.getOutputStream();
            for (int index = 1; ; index++) {
                socket.setSoTimeout(index > 1 ? idleCloseMs : 0);
                int first;
                try {
                    first = in.read();
                } catch (SocketTimeoutException idle) {
                    return; // idle close, as a keep-alive server does
                }
                if (first < 0) {
                    clientClosed(connection).complete(null);
                    return;
                }
                socket.setSoTimeout(0);
                Request request = read(first, in, connection, index);
                requests.add(request);
                After after = script.answer(request, out);
                if (after == After.CLOSE) {
                    return;
                }
                if (after == After.STALL) {
                    while (in.read() >= 0) {
                        // discard whatever else comes until the client closes
                    }
                    clientClosed(connection).complete(null);
                    return;
                }
            }
        } catch (IOException reset) {
            clientClosed(connection).complete(null);
        }
    }

    private static Request read(int first, InputStream in, int connection, int index) throws IOException {
        String requestLine = (char) first + readLine(in);
        Map<String, String> headers = new TreeMap<>();
        for (String line = readLine(in); !line.isEmpty(); line = readLine(in)) {
            int colon = line.indexOf(':');
            headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
        }
        int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
        byte[] body = in.readNBytes(length);
        return new Request(connection, index, requestLine, headers, new String(body, StandardCharsets.UTF_8));
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                throw new IOException("connection closed inside a request head");
            }
            if (b != '\r') {
                line.write(b);
            }
        }
        return line.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket socket : new ArrayList<>(sockets)) {
            socket.close();
        }
    }
}
