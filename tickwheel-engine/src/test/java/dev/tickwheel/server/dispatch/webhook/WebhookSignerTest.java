package dev.tickwheel.server.dispatch.webhook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.store.jdbc.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The v1 webhook signature: known answers, the headers it adds, and concurrent use of the cached keys. */
class WebhookSignerTest {

    private final MutableClock clock = new MutableClock(Instant.ofEpochSecond(1_700_000_000L, 999_000_000));
    private final WebhookSigner signer = new WebhookSigner(clock);

    @Test
    void signature_knownAnswers() {
        // Expected values from Python's hmac module, not from this code:
        // python3 -c 'import hmac,hashlib;print(hmac.new(b"secret",b"1700000000.{}",hashlib.sha256).hexdigest())'
        assertEquals("v1=b8569b78799ff9e3cbff0fc2d63a33a2b57f3282abd07c37ae5e8e7d79a5f163",
                signer.signature("secret", 1_700_000_000L, "{}".getBytes(StandardCharsets.UTF_8)));
        // hmac.new(b"whsec_0123456789abcdef", b'1700000000.{"a":"\xc3\xa9"}', hashlib.sha256): a UTF-8 body
        assertEquals("v1=ca753226fe17bacf8560c7ad3a411351cea988bdaf53f3d23e89f6537770d85f",
                signer.signature("whsec_0123456789abcdef", 1_700_000_000L,
                        "{\"a\":\"é\"}".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void sign_addsTimestampInWholeSecondsAndTheSignatureOverIt() throws Exception {
        byte[] body = "{\"instanceId\":\"1\"}".getBytes(StandardCharsets.UTF_8);
        Map<String, String> headers = new LinkedHashMap<>();

        signer.sign("whsec_0123456789abcdef", body, headers::put);

        assertEquals(List.of("Tickwheel-Timestamp", "Tickwheel-Signature"), List.copyOf(headers.keySet()));
        assertEquals("1700000000", headers.get("Tickwheel-Timestamp"), "seconds, rounded down");
        assertEquals(SignatureOracle.v1("whsec_0123456789abcdef", "1700000000", body),
                headers.get("Tickwheel-Signature"));
    }

    @Test
    void sign_later_newTimestampAndSignature() throws Exception {
        byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
        Map<String, String> first = new LinkedHashMap<>();
        Map<String, String> second = new LinkedHashMap<>();

        signer.sign("whsec_0123456789abcdef", body, first::put);
        clock.advance(Duration.ofSeconds(4));
        signer.sign("whsec_0123456789abcdef", body, second::put);

        assertEquals("1700000004", second.get("Tickwheel-Timestamp"));
        assertNotEquals(first.get("Tickwheel-Signature"), second.get("Tickwheel-Signature"));
        assertEquals(SignatureOracle.v1("whsec_0123456789abcdef", "1700000004", body),
                second.get("Tickwheel-Signature"));
    }

    @Test
    void signature_differentSecretsAndBodies_differ() {
        byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
        String a = signer.signature("secret-number-one-0001", 1L, body);
        String b = signer.signature("secret-number-two-0002", 1L, body);
        String c = signer.signature("secret-number-one-0001", 1L, "{ }".getBytes(StandardCharsets.UTF_8));

        assertNotEquals(a, b);
        assertNotEquals(a, c);
        assertEquals(a, signer.signature("secret-number-one-0001", 1L, body), "the cached key signs the same");
    }

    @Test
    void signature_manyThreadsManySecrets_everySignatureMatchesTheOracle() throws Exception {
        // Shared prototypes are cloned per call: a Mac used by two threads at once would produce wrong digests.
        int threads = 8;
        int perThread = 2_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                Callable<Integer> work = () -> {
                    int checked = 0;
                    for (int i = 0; i < perThread; i++) {
                        String secret = "secret-of-job-" + (i % 5) + "-0123456789";
                        byte[] body = ("{\"thread\":" + thread + ",\"i\":" + i + "}").getBytes(StandardCharsets.UTF_8);
                        String expected = SignatureOracle.v1(secret, Long.toString(i), body);
                        assertEquals(expected, signer.signature(secret, i, body));
                        checked++;
                    }
                    return checked;
                };
                results.add(pool.submit(work));
            }
            int total = 0;
            for (Future<Integer> result : results) {
                total += result.get(60, TimeUnit.SECONDS);
            }
            assertEquals(threads * perThread, total);
        } finally {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
        }
    }
}
