package dev.tickwheel.bench.webhook;

import dev.tickwheel.concurrent.NamedThreadFactory;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.AbstractHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * A webhook receiver on loopback made for load: it answers Tickwheel's POSTs as its {@link ReceiverMode} says and
 * records every delivery's {@code Idempotency-Key} (instance id and attempt) and arrival time in a lock-free
 * {@link DeliveryLog}. A request whose key is missing or malformed, or names another instance than the body's
 * {@code instanceId}, is answered {@code 400} and counted in {@link #malformed()}.
 *
 * <h2>How it holds no thread</h2>
 * Jetty 11 (on the class path through Javalin) with a plain {@link AbstractHandler}: the request is read on a Jetty
 * thread (a Tickwheel body is a few hundred bytes and arrives with the headers) and recorded. {@code fast} answers
 * there and then. {@code latency} puts the request in asynchronous mode ({@code startAsync}, no async timeout) and a
 * one-thread scheduler answers it when its latency is up; {@code stall} sends {@code 200} headers with
 * {@code Content-Length: 1024} and 100 bytes of body, flushes and goes asynchronous; {@code stall-headers} goes
 * asynchronous at once. So 10 000 requests held for 20 s cost 10 000 connections and scheduler entries, no threads.
 * Connections are kept alive (HTTP/1.1) and idle ones are closed after {@link #IDLE_TIMEOUT_MS}.
 *
 * <h2>Capacity, and how it was checked</h2>
 * With {@code wrk} (4.1.0, Debian package) on the 2-core benchmark machine, keep-alive, POSTs shaped like
 * Tickwheel's with a distinct key each ({@code dispatcher-bench/src/main/resources/wrk/tickwheel-webhook.lua}):
 * <pre>
 * java -cp dispatcher-bench/target/benchmarks.jar dev.tickwheel.bench.webhook.LoadReceiver --port 8089 --mode fast
 * wrk -t1 -c64 -d20s -s dispatcher-bench/src/main/resources/wrk/tickwheel-webhook.lua http://127.0.0.1:8089/hook
 * </pre>
 * {@code fast}, 2026-11-23, load average 3 to 8 from other work: 35 900 requests/s with 64 connections and 30 900/s
 * with 256 ({@code -t2 -c256}), wrk and the receiver sharing the two cores. {@code latency 1000} with 2 000
 * connections ({@code -t2 -c2000 --timeout 5s --latency}): 1 830 requests/s over 20 s including the opening of the
 * connections, answers at p50 1.00 s, p90 1.04 s.
 *
 * <p>Thread-safe. Lifecycle: {@link #start} once, {@link #close} once.
 *
 * <p>Caveats: a stalled request is never answered; {@link #close} cuts its connection. The log keeps every delivery
 * until the receiver is dropped (about 20 bytes each).
 */
public final class LoadReceiver implements AutoCloseable {

    /** Idle keep-alive connections are closed after this: longer than any pause in a benchmark. */
    public static final long IDLE_TIMEOUT_MS = 120_000;
    /** The path {@link #url()} names; any path is accepted. */
    public static final String PATH = "/hook";
    static final int STALL_CONTENT_LENGTH = 1024;
    static final int STALL_SENT_BYTES = 100;

    private static final byte[] OK = "ok".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] INSTANCE_ID_FIELD = "\"instanceId\":\"".getBytes(StandardCharsets.US_ASCII);
    private static final int MAX_BODY_BYTES = 64 * 1024;
    private static final int ACCEPT_QUEUE = 4_096;

    private final ReceiverMode mode;
    private final Server server;
    private final ServerConnector connector;
    private final ScheduledThreadPoolExecutor answers;
    private final DeliveryLog deliveries = new DeliveryLog();
    private final LongAdder malformed = new LongAdder();
    // Requests taken asynchronously and not answered yet; written by Jetty and scheduler threads, read by anyone.
    private final AtomicInteger held = new AtomicInteger();

    private LoadReceiver(ReceiverMode mode, int port) {
        this.mode = mode;
        QueuedThreadPool threads = new QueuedThreadPool(64, 8);
        threads.setName("tickwheel-receiver");
        threads.setDaemon(true);
        this.server = new Server(threads);
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendDateHeader(false);
        this.connector = new ServerConnector(server, new HttpConnectionFactory(http));
        connector.setHost("127.0.0.1");
        connector.setPort(port);
        connector.setAcceptQueueSize(ACCEPT_QUEUE);
        connector.setIdleTimeout(IDLE_TIMEOUT_MS);
        server.addConnector(connector);
        server.setHandler(new Hook());
        server.setStopTimeout(0);
        this.answers = new ScheduledThreadPoolExecutor(1, new NamedThreadFactory("receiver-answer", true));
    }

    /** Starts a receiver on a free loopback port. */
    public static LoadReceiver start(ReceiverMode mode) {
        return start(mode, 0);
    }

    /** Starts a receiver on {@code port} of 127.0.0.1 (0: a free one). */
    public static LoadReceiver start(ReceiverMode mode, int port) {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port must be in 0..65535: " + port);
        }
        LoadReceiver receiver = new LoadReceiver(mode, port);
        try {
            receiver.server.start();
        } catch (Exception e) {
            receiver.close();
            throw new IllegalStateException("receiver could not start on port " + port + ": " + e, e);
        }
        return receiver;
    }

    public ReceiverMode mode() {
        return mode;
    }

    public int port() {
        return connector.getLocalPort();
    }

    /** The webhook URL, e.g. {@code http://127.0.0.1:41234/hook}. */
    public String url() {
        return "http://127.0.0.1:" + port() + PATH;
    }

    /** Every delivery recorded so far. */
    public DeliveryLog deliveries() {
        return deliveries;
    }

    /** Requests answered {@code 400}: no or a malformed key, or a key naming another instance than the body. */
    public long malformed() {
        return malformed.sum();
    }

    /** Requests held now: waiting for their latency, or stalled (those are never answered). */
    public int held() {
        return held.get();
    }

    /** Stops listening and cuts every connection, stalled ones included. Idempotent. */
    @Override
    public void close() {
        answers.shutdownNow();
        try {
            server.stop();
        } catch (Exception e) {
            throw new IllegalStateException("receiver on port " + port() + " did not stop: " + e, e);
        }
    }

    /** The one handler: every request to any path. Runs on Jetty's threads. */
    private final class Hook extends AbstractHandler {
        @Override
        public void handle(String target, Request base, HttpServletRequest request, HttpServletResponse response)
                throws IOException {
            base.setHandled(true);
            if (!"POST".equals(request.getMethod())) {
                response.sendError(405);
                return;
            }
            long arrivalMs = System.currentTimeMillis();
            byte[] body = request.getInputStream().readNBytes(MAX_BODY_BYTES);
            if (!record(request.getHeader("Idempotency-Key"), body, arrivalMs)) {
                malformed.increment();
                response.sendError(400);
                return;
            }
            switch (mode.kind()) {
                case FAST -> answer(response);
                case LATENCY -> {
                    AsyncContext async = hold(request);
                    answers.schedule(() -> answerLater(async), mode.latencyMs(), TimeUnit.MILLISECONDS);
                }
                case STALL -> {
                    hold(request);
                    response.setStatus(200);
                    response.setContentType("text/plain");
                    response.setContentLength(STALL_CONTENT_LENGTH);
                    response.getOutputStream().write(new byte[STALL_SENT_BYTES]);
                    response.flushBuffer();
                }
                case STALL_HEADERS -> hold(request);
            }
        }
    }

    private AsyncContext hold(HttpServletRequest request) {
        AsyncContext async = request.startAsync();
        async.setTimeout(0); // never time out: the latency, or the stall, is ours to decide
        held.incrementAndGet();
        return async;
    }

    private void answerLater(AsyncContext async) {
        try {
            answer((HttpServletResponse) async.getResponse());
        } catch (IOException | RuntimeException clientGone) {
            // The client gave up (its deadline) and closed the connection: nothing to answer.
        } finally {
            held.decrementAndGet();
            async.complete();
        }
    }

    private static void answer(HttpServletResponse response) throws IOException {
        response.setStatus(200);
        response.setContentType("text/plain");
        response.setContentLength(OK.length);
        response.getOutputStream().write(OK);
    }

    /** Parses {@code <instanceId>-<attempt>}, checks it against the body, and logs it. False if malformed. */
    private boolean record(String key, byte[] body, long arrivalMs) {
        if (key == null) {
            return false;
        }
        int dash = key.lastIndexOf('-');
        long instanceId;
        int attempt;
        try {
            instanceId = Long.parseLong(key, 0, dash, 10);
            attempt = Integer.parseInt(key, dash + 1, key.length(), 10);
        } catch (NumberFormatException | IndexOutOfBoundsException e) {
            return false;
        }
        if (instanceId <= 0 || attempt < 1 || bodyInstanceId(body) != instanceId) {
            return false;
        }
        deliveries.append(instanceId, attempt, arrivalMs);
        return true;
    }

    /** The decimal string after {@code "instanceId":"} in the JSON body (Jackson writes no blanks), or -1. */
    static long bodyInstanceId(byte[] body) {
        int at = indexOf(body, INSTANCE_ID_FIELD);
        if (at < 0) {
            return -1;
        }
        long value = 0;
        int digits = 0;
        for (int i = at + INSTANCE_ID_FIELD.length; i < body.length && body[i] != '"'; i++) {
            int digit = body[i] - '0';
            if (digit < 0 || digit > 9 || ++digits > 18) {
                return -1;
            }
            value = value * 10 + digit;
        }
        return digits == 0 ? -1 : value;
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /**
     * Runs a receiver until killed, printing its delivery count every 5 s: {@code --port 8089} (default 0, a free
     * one), {@code --mode fast | latency <ms> | stall | stall-headers} (default fast).
     */
    public static void main(String[] args) throws InterruptedException {
        int port = 0;
        ReceiverMode mode = ReceiverMode.fast();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(value(args, ++i, "--port"));
                case "--mode" -> {
                    String text = value(args, ++i, "--mode");
                    if (text.equals("latency")) {
                        text = text + " " + value(args, ++i, "--mode latency");
                    }
                    mode = ReceiverMode.parse(text);
                }
                default -> throw new IllegalArgumentException("unknown option: " + args[i]);
            }
        }
        LoadReceiver receiver = start(mode, port);
        System.out.println("receiving on " + receiver.url() + " (" + mode + ")");
        long last = 0;
        while (true) {
            Thread.sleep(5_000);
            long now = receiver.deliveries().size();
            System.out.printf("deliveries %,d (+%,d/s), held %,d, malformed %,d%n", now, (now - last) / 5,
                    receiver.held(), receiver.malformed());
            last = now;
        }
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException("option " + option + " needs a value");
        }
        return args[i];
    }
}
