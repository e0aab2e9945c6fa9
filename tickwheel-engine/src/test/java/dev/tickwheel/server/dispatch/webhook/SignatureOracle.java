package dev.tickwheel.server.dispatch.webhook;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A second implementation of the {@code v1} webhook signature for tests, written the way a receiver would: a fresh
 * {@link Mac} per check, no cache, no clone, and the message built as one byte array. Tests compare what
 * {@link WebhookSigner} sent with what this computes over the bytes the receiver got.
 */
public final class SignatureOracle {

    private SignatureOracle() {
    }

    /** {@code v1=<hex HMAC-SHA256(secret, timestamp + "." + body)>}. */
    public static String v1(String secret, String timestamp, byte[] body) throws Exception {
        byte[] prefix = (timestamp + ".").getBytes(StandardCharsets.UTF_8);
        byte[] message = new byte[prefix.length + body.length];
        System.arraycopy(prefix, 0, message, 0, prefix.length);
        System.arraycopy(body, 0, message, prefix.length, body.length);
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        return "v1=" + HexFormat.of().formatHex(mac.doFinal(message));
    }
}
