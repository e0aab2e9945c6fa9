package dev.tickwheel.server.dispatch.webhook;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Objects;
import java.util.function.BiConsumer;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signs webhook requests with a shared secret, the scheme of Stripe and GitHub: a receiver that knows the secret can
 * tell that a request came from Tickwheel, that its body was not changed on the way, and that it is fresh.
 *
 * <pre>
 * Tickwheel-Timestamp: 1700000000
 * Tickwheel-Signature: v1=&lt;lowercase hex of HMAC-SHA256(key = secret as UTF-8,
 *                                                      message = "1700000000" + "." + raw body bytes)&gt;
 * </pre>
 *
 * <p>The timestamp is the wall clock's Unix time in seconds when the request is written; it is inside the signed
 * message, so a receiver that rejects timestamps older than a few minutes also rejects replays of a captured request.
 * The signature covers exactly the body bytes sent, so a receiver must verify the raw body before parsing it. The
 * {@code v1=} prefix names the scheme: a later scheme, or two signatures during a key rotation, would travel in the
 * same header separated by commas; a receiver accepts the request if any {@code v1} signature matches. Tickwheel sends
 * one today.
 *
 * <p>Why a cached prototype per secret, cloned per request: a {@link Mac} is not thread-safe, and
 * {@link Mac#init} is the expensive part (it hashes the key into the inner and outer pads). The prototype is
 * initialized once per secret and never updated; {@link Mac#clone()} copies its initialized state, so a request costs a
 * clone plus the hashing of its own bytes, on whichever thread makes it. A {@code ThreadLocal} would also avoid the
 * sharing, but it would keep a map of secrets per thread (call-start threads, I/O threads, the alert thread) that is
 * hard to bound and keeps old secrets alive after a rotation; the one Caffeine cache is bounded
 * ({@value #MAX_CACHED_SECRETS} secrets, least recently used out) and shared by all threads.
 *
 * <p>Thread-safe.
 *
 * <p>Caveats: the secrets are held in memory (they already are, in the cached job definitions).
 */
public final class WebhookSigner {

    /** The header with the Unix time in seconds that the signature covers. */
    public static final String TIMESTAMP_HEADER = "Tickwheel-Timestamp";
    /** The header with {@code v1=<hex HMAC-SHA256>}. */
    public static final String SIGNATURE_HEADER = "Tickwheel-Signature";
    /** Secrets whose initialized {@link Mac} is kept: one per signed job, least recently used out. */
    static final int MAX_CACHED_SECRETS = 10_000;

    private static final String ALGORITHM = "HmacSHA256";
    private static final HexFormat HEX = HexFormat.of(); // lowercase

    private final Clock clock;
    private final Cache<String, Mac> prototypes = Caffeine.newBuilder().maximumSize(MAX_CACHED_SECRETS).build();

    /** @param clock the wall clock the timestamps come from */
    public WebhookSigner(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Adds {@link #TIMESTAMP_HEADER} (now) and {@link #SIGNATURE_HEADER} for {@code body} to a request.
     *
     * @param secret the job's signing secret, not null
     * @param header receives each header's name and value
     */
    void sign(String secret, byte[] body, BiConsumer<String, String> header) {
        long timestampSeconds = clock.instant().getEpochSecond();
        header.accept(TIMESTAMP_HEADER, Long.toString(timestampSeconds));
        header.accept(SIGNATURE_HEADER, signature(secret, timestampSeconds, body));
    }

    /**
     * Checks a signed request the other way round (a target's callback report): {@code signatureHeader} must hold a
     * {@code v1} signature of {@code "<timestampHeader>.<body>"} under {@code secret}, compared in constant time, and the
     * timestamp must be within {@code tolerance} of this signer's clock, so a captured report cannot be replayed later.
     *
     * @return true if both hold; false for a missing, malformed, stale or wrong header
     */
    public boolean verify(String secret, String timestampHeader, String signatureHeader, byte[] body,
                          Duration tolerance) {
        Objects.requireNonNull(secret, "secret");
        if (timestampHeader == null || signatureHeader == null || body == null) {
            return false;
        }
        long timestampSeconds;
        try {
            timestampSeconds = Long.parseLong(timestampHeader.strip());
        } catch (NumberFormatException notANumber) {
            return false;
        }
        if (Math.abs(clock.instant().getEpochSecond() - timestampSeconds) > tolerance.toSeconds()) {
            return false;
        }
        byte[] expected = signature(secret, timestampSeconds, body).getBytes(StandardCharsets.US_ASCII);
        boolean matched = false;
        for (String candidate : signatureHeader.split(",")) {
            // Every candidate is compared, matched or not: the time taken does not tell which one matched.
            matched |= MessageDigest.isEqual(expected, candidate.strip().getBytes(StandardCharsets.US_ASCII));
        }
        return matched;
    }

    /** {@code v1=<hex>} of {@code "<timestampSeconds>.<body>"} under {@code secret}. */
    String signature(String secret, long timestampSeconds, byte[] body) {
        Objects.requireNonNull(secret, "secret");
        Mac mac = macFor(secret);
        mac.update(Long.toString(timestampSeconds).getBytes(StandardCharsets.US_ASCII));
        mac.update((byte) '.');
        mac.update(body);
        return "v1=" + HEX.formatHex(mac.doFinal());
    }

    /** A fresh, initialized Mac of this secret's own: nobody else updates it. */
    private Mac macFor(String secret) {
        Mac prototype = prototypes.get(secret, WebhookSigner::newMac);
        try {
            return (Mac) prototype.clone(); // the prototype itself is never updated, so cloning it only reads it
        } catch (CloneNotSupportedException notCloneable) {
            return newMac(secret); // a provider without clone support: pay for init every time
        }
    }

    private static Mac newMac(String secret) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), ALGORITHM));
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every Java platform, yet: " + e, e);
        }
    }
}
