package dev.tickwheel.bench.webhook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The receiver's modes on a raw socket, its key parsing, and the delivery log under concurrent appends. */
class LoadReceiverTest {

    private static final String BODY = "{\"instanceId\":\"42\",\"jobId\":\"7\",\"attempt\":1}";

    @Test
    void fast_answers200AndRecordsTheKey() throws IOException {
        try (LoadReceiver receiver = LoadReceiver.start(ReceiverMode.fast())) {
            String answer = exchange(receiver, "42-1", BODY, 2_000);

            assertTrue(answer.startsWith("HTTP/1.1 200"), answer);
            List<long[]> seen = entries(receiver.deliveries());
            assertEquals(1, seen.size());
            assertEquals(42, seen.get(0)[0]);
            assertEquals(1, seen.get(0)[1]);
        }
    }

    @Test
    void keyNamingAnotherInstanceThanTheBody_is400AndNotRecorded() throws IOException {
        try (LoadReceiver receiver = LoadReceiver.start(ReceiverMode.fast())) {
            String answer = exchange(receiver, "43-1", BODY, 2_000);

            assertTrue(answer.startsWith("HTTP/1.1 400"), answer);
            assertEquals(1, receiver.malformed());
            assertEquals(0, receiver.deliveries().size());
        }
    }

    @Test
    void stall_sendsHeadersAndPartOfTheBody_thenNothing() throws IOException {
        try (LoadReceiver receiver = LoadReceiver.start(ReceiverMode.stall())) {
            String answer = exchange(receiver, "42-1", BODY, 500);

            assertTrue(answer.startsWith("HTTP/1.1 200"), answer);
            assertTrue(answer.contains("Content-Length: " + LoadReceiver.STALL_CONTENT_LENGTH), answer);
            int body = answer.length() - answer.indexOf("\r\n\r\n") - 4;
            assertEquals(LoadReceiver.STALL_SENT_BYTES, body, answer);
            assertEquals(1, receiver.held());
        }
    }

    @Test
    void stallHeaders_answersNothing() throws IOException {
        try (LoadReceiver receiver = LoadReceiver.start(ReceiverMode.stallHeaders())) {
            assertEquals("", exchange(receiver, "42-1", BODY, 500));
            assertEquals(1, receiver.deliveries().size());
        }
    }

    @Test
    void latency_answersAfterIt() throws IOException {
        try (LoadReceiver receiver = LoadReceiver.start(ReceiverMode.latency(200))) {
            long startNanos = System.nanoTime();
            String answer = exchange(receiver, "42-1", BODY, 2_000);
            long tookMs = (System.nanoTime() - startNanos) / 1_000_000;

            assertTrue(answer.startsWith("HTTP/1.1 200"), answer);
            assertTrue(tookMs >= 200, "answered after " + tookMs + " ms");
            // The receiver lets go of the call just after the answer's bytes leave it: wait for that, bounded.
            long deadline = System.nanoTime() + 2_000_000_000L;
            while (receiver.held() != 0 && System.nanoTime() < deadline) {
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            }
            assertEquals(0, receiver.held());
        }
    }

    @Test
    void mode_parsesWhatItPrints_andNamesBadText() {
        for (ReceiverMode mode : List.of(ReceiverMode.fast(), ReceiverMode.latency(1000), ReceiverMode.stall(),
                ReceiverMode.stallHeaders())) {
            assertEquals(mode, ReceiverMode.parse(mode.toString()));
        }
        assertEquals(ReceiverMode.latency(1000), ReceiverMode.parse("latency 1000"));
        assertEquals(ReceiverMode.fast(), ReceiverMode.parse("latency 0"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ReceiverMode.parse("slow"));
        assertTrue(e.getMessage().contains("'slow'"), e.getMessage());
    }

    @Test
    void bodyInstanceId_readsJacksonsShape() {
        assertEquals(42, LoadReceiver.bodyInstanceId(BODY.getBytes(StandardCharsets.UTF_8)));
        assertEquals(-1, LoadReceiver.bodyInstanceId("{\"instanceId\":\"\"}".getBytes(StandardCharsets.UTF_8)));
        assertEquals(-1, LoadReceiver.bodyInstanceId("{}".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void deliveryLog_concurrentAppends_allSeenOnce() throws InterruptedException {
        DeliveryLog log = new DeliveryLog();
        int threads = 8;
        int perThread = 50_000; // 400 000 entries: 25 chunks, so chunk installation races too
        List<Thread> writers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long base = (t + 1) * 1_000_000L;
            writers.add(new Thread(() -> {
                for (int i = 0; i < perThread; i++) {
                    log.append(base + i, 1, i);
                }
            }));
        }
        writers.forEach(Thread::start);
        for (Thread w : writers) {
            w.join();
        }
        java.util.Set<Long> ids = new java.util.HashSet<>();
        log.forEach((id, attempt, at) -> assertTrue(ids.add(id), "twice: " + id));

        assertEquals((long) threads * perThread, log.size());
        assertEquals(threads * perThread, ids.size());
        assertThrows(IllegalArgumentException.class, () -> log.append(0, 1, 0));
    }

    private static List<long[]> entries(DeliveryLog log) {
        List<long[]> out = new ArrayList<>();
        log.forEach((id, attempt, at) -> out.add(new long[] {id, attempt, at}));
        return out;
    }

    /** Sends one POST and returns what came back within {@code readMs} (possibly nothing). */
    private static String exchange(LoadReceiver receiver, String key, String body, int readMs) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", receiver.port())) {
            socket.setSoTimeout(readMs);
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            OutputStream out = socket.getOutputStream();
            out.write(("POST /hook HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Idempotency-Key: " + key + "\r\nContent-Length: " + bytes.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(bytes);
            out.flush();
            StringBuilder answer = new StringBuilder();
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[4096];
            try {
                int n;
                while ((n = in.read(buffer)) > 0) {
                    answer.append(new String(buffer, 0, n, StandardCharsets.ISO_8859_1));
                    if (complete(answer)) {
                        break;
                    }
                }
            } catch (SocketTimeoutException stalled) {
                // what arrived so far is the answer
            }
            return answer.toString();
        }
    }

    /** True once the headers and a Content-Length's worth of body have arrived. */
    private static boolean complete(StringBuilder answer) {
        int end = answer.indexOf("\r\n\r\n");
        if (end < 0) {
            return false;
        }
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?i)content-length: *(\\d+)")
                .matcher(answer.substring(0, end));
        return m.find() && answer.length() - end - 4 >= Integer.parseInt(m.group(1));
    }
}
