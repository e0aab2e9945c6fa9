package dev.tickwheel.client;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on loopback between the client under test and a server, which can lose answers the way a network does.
 * It reads the first request head of each connection and, by its request line ({@code POST /api/jobs/1/run
 * HTTP/1.1}):
 * <ul>
 *   <li>{@link #dropAnswers}: forwards the request, waits for the first byte of the server's answer (the server has
 *       done the work and answered), then closes both connections without passing a byte on: the client sees its
 *       connection closed before any answer;
 *   <li>{@link #answer503}: answers {@code 503 store_unavailable} itself and closes, forwarding nothing;
 *   <li>otherwise forwards both ways until either side closes.
 * </ul>
 * Each rule applies to as many connections as it was given, then the proxy forwards. Only a connection's first
 * request is looked at; later ones on a kept-alive connection are forwarded unseen, so a test whose request must be
 * looked at sends it on a fresh connection (a new client; a dropped or refused connection is closed, so the client's
 * retry opens a new one).
 *
 * <p>Thread-safe: one thread accepts, two pump each connection; the rules and records are atomic or copy-on-write.
 */
final class DroppingProxy implements AutoCloseable {

    /** The first request head of a connection: its request line and its header lines. */
    record Head(String requestLine, List<String> headers) {
        String header(String name) {
            for (String line : headers) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
                    return line.substring(colon + 1).trim();
                }
            }
            return null;
        }
    }

    private static final String UNAVAILABLE_BODY = "{\"error\":\"store_unavailable\",\"message\":\"the store could"
            + " not complete the request; try again later\",\"field\":null}";
    private static final byte[] UNAVAILABLE = ("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json"
            + "\r\nConnection: close\r\nContent-Length: " + UNAVAILABLE_BODY.length() + "\r\n\r\n" + UNAVAILABLE_BODY)
            .getBytes(StandardCharsets.US_ASCII);

    private final ServerSocket listener;
    private final int upstreamPort;
    private final List<Head> heads = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final AtomicInteger answersToDrop = new AtomicInteger();
    private final AtomicInteger answersTo503 = new AtomicInteger();
    private volatile String dropLine = "\0"; // written by the test thread, read by the pumps
    private volatile String unavailableLine = "\0";
    private final AtomicInteger dropped = new AtomicInteger();

    DroppingProxy(int upstreamPort) throws IOException {
        this.upstreamPort = upstreamPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "test-proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    String baseUrl() {
        return "http://127.0.0.1:" + listener.getLocalPort();
    }

    /** Drops the answer of the next {@code times} connections whose first request line starts with {@code line}. */
    void dropAnswers(String line, int times) {
        dropLine = line;
        answersToDrop.set(times);
    }

    /** Answers 503 to the next {@code times} connections whose first request line starts with {@code line}. */
    void answer503(String line, int times) {
        unavailableLine = line;
        answersTo503.set(times);
    }

    /** The first request head of every connection so far, in order. */
    List<Head> heads() {
        return List.copyOf(heads);
    }

    /** The heads whose request line starts with {@code line}. */
    List<Head> heads(String line) {
        return heads.stream().filter(h -> h.requestLine().startsWith(line)).toList();
    }

    /** Answers the proxy dropped so far (each one the server had started to send). */
    int dropped() {
        return dropped.get();
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                sockets.add(client);
                Thread t = new Thread(() -> serve(client), "test-proxy-connection");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket client) {
        try (client; Socket server = new Socket(InetAddress.getLoopbackAddress(), upstreamPort)) {
            sockets.add(server);
            InputStream fromClient = client.getInputStream();
            byte[] head = readHead(fromClient);
            if (head == null) {
                return;
            }
            Head parsed = parse(head);
            heads.add(parsed);
            if (parsed.requestLine().startsWith(unavailableLine) && answersTo503.getAndDecrement() > 0) {
                client.getOutputStream().write(UNAVAILABLE);
                client.getOutputStream().flush();
                return;
            }
            boolean drop = parsed.requestLine().startsWith(dropLine) && answersToDrop.getAndDecrement() > 0;
            OutputStream toServer = server.getOutputStream();
            toServer.write(head);
            toServer.flush();
            Thread up = new Thread(() -> pump(fromClient, toServer), "test-proxy-up");
            up.setDaemon(true);
            up.start();
            if (drop) {
                if (server.getInputStream().read() >= 0) { // the server has answered: lose the answer
                    dropped.incrementAndGet();
                }
                return; // closes both sockets
            }
            pump(server.getInputStream(), client.getOutputStream());
        } catch (IOException e) {
            // either side closed
        }
    }

    /** Bytes up to and including the blank line after the headers (a request's body follows unread), or null. */
    private static byte[] readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        byte[] end = {'\r', '\n', '\r', '\n'};
        int b;
        while ((b = in.read()) >= 0) {
            head.write(b);
            matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
            if (matched == end.length) {
                return head.toByteArray();
            }
        }
        return null;
    }

    private static Head parse(byte[] head) {
        String[] lines = new String(head, StandardCharsets.ISO_8859_1).split("\r\n");
        List<String> headers = new ArrayList<>(List.of(lines).subList(1, lines.length));
        return new Head(lines[0], headers);
    }

    private static void pump(InputStream in, OutputStream out) {
        byte[] buffer = new byte[8192];
        try {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // either side closed
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Socket socket : sockets) {
            socket.close();
        }
    }
}
