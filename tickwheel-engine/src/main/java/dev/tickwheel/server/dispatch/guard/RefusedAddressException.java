package dev.tickwheel.server.dispatch.guard;

import java.net.UnknownHostException;
import java.util.Objects;

/**
 * The outbound guard refused every address of a host at connect time: nothing was sent. An
 * {@link UnknownHostException} because that is what a connection's resolver may throw (Apache HttpClient's
 * {@code DnsResolver}); its message is the {@linkplain OutboundGuard.Refusal#message() refusal's}.
 *
 * <p>Immutable.
 */
public final class RefusedAddressException extends UnknownHostException {

    private static final long serialVersionUID = 1L;

    private final transient OutboundGuard.Refusal refusal;

    RefusedAddressException(OutboundGuard.Refusal refusal) {
        super(refusal.message());
        this.refusal = Objects.requireNonNull(refusal, "refusal");
    }

    /** Which address was refused, of which host, and why. */
    public OutboundGuard.Refusal refusal() {
        return refusal;
    }
}
