package dev.tickwheel.server.dispatch;

import dev.tickwheel.server.store.CallbackAttempt;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The token in a callback URL: it names one attempt ({@link CallbackAttempt}: instance, attempt, claim epoch) and
 * proves that a member of this cluster issued it, so any member can take the report without a lookup table.
 *
 * <pre>
 *   &lt;instanceId&gt;.&lt;attempt&gt;.&lt;claimEpoch&gt;.&lt;first 16 bytes of HMAC-SHA256(key, "&lt;instanceId&gt;.&lt;attempt&gt;.&lt;claimEpoch&gt;"), hex&gt;
 * </pre>
 *
 * <p>The key is the cluster's ({@code tw_cluster.callback_key}, made at random by the first member that opened the
 * store), so a token cannot be made up without it, and a token for one attempt says nothing about another's. Single
 * use comes from the store, not the token: the report moves the attempt out of DISPATCHING, and a token of an attempt
 * that is over matches no row (see {@code CallbackTransitions}).
 *
 * <p>Immutable; thread-safe (each call uses its own {@link Mac}).
 */
public final class CallbackTokens {

    private static final String ALGORITHM = "HmacSHA256";
    private static final int MAC_BYTES = 16;
    private static final HexFormat HEX = HexFormat.of();
    private static final Pattern TOKEN = Pattern.compile("(\\d{1,19})\\.(\\d{1,10})\\.(\\d{1,19})\\.([0-9a-f]{32})");

    private final SecretKeySpec key;

    /** @param key the cluster's callback key, at least 16 bytes */
    public CallbackTokens(byte[] key) {
        Objects.requireNonNull(key, "key");
        if (key.length < 16) {
            throw new IllegalArgumentException("a callback key must have at least 16 bytes: " + key.length);
        }
        this.key = new SecretKeySpec(key.clone(), ALGORITHM);
    }

    /** The token of one attempt. */
    public String issue(CallbackAttempt attempt) {
        String claim = claimOf(attempt);
        return claim + "." + HEX.formatHex(mac(claim));
    }

    /** The attempt a token names, if this cluster issued it; empty for anything else. Constant time in the MAC. */
    public Optional<CallbackAttempt> verify(String token) {
        if (token == null) {
            return Optional.empty();
        }
        Matcher m = TOKEN.matcher(token);
        if (!m.matches()) {
            return Optional.empty();
        }
        CallbackAttempt attempt;
        try {
            attempt = new CallbackAttempt(Long.parseLong(m.group(1)), Integer.parseInt(m.group(2)),
                    Long.parseLong(m.group(3)));
        } catch (NumberFormatException outOfRange) {
            return Optional.empty();
        }
        byte[] expected = mac(claimOf(attempt));
        byte[] given = HEX.parseHex(m.group(4));
        // The claim is re-rendered, so "007.1.1" and "7.1.1" cannot share a MAC.
        return MessageDigest.isEqual(expected, given) && token.startsWith(claimOf(attempt) + ".")
                ? Optional.of(attempt) : Optional.empty();
    }

    private static String claimOf(CallbackAttempt attempt) {
        return attempt.instanceId() + "." + attempt.attempt() + "." + attempt.claimEpoch();
    }

    private byte[] mac(String claim) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return Arrays.copyOf(mac.doFinal(claim.getBytes(StandardCharsets.US_ASCII)), MAC_BYTES);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every Java platform, yet: " + e, e);
        }
    }
}
