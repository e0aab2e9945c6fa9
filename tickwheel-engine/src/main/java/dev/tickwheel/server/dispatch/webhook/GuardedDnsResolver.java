package dev.tickwheel.server.dispatch.webhook;

import dev.tickwheel.server.dispatch.guard.OutboundGuard;
import java.net.InetAddress;
import java.net.UnknownHostException;
import org.apache.hc.client5.http.DnsResolver;
import org.apache.hc.client5.http.SystemDefaultDnsResolver;

/**
 * The transport's resolver when the outbound guard is on: resolves a host and hands Apache HttpClient only the
 * addresses the guard allows, so the address a connection is opened to is the address that was judged.
 *
 * <p>Why here: in Apache HttpClient 5.5's async client every new connection resolves its host through the connection
 * manager's {@link DnsResolver} ({@code MultihomeIOSessionRequester.connect} calls {@code resolve(host, port)}, whose
 * default calls {@link #resolve(String)}), IP literals included: a route's {@code HttpHost} is built from the request's
 * scheme and authority, without an address, and only an {@code HttpHost} that carries an address skips the resolver.
 * Refusing here fails the connect with a {@link dev.tickwheel.server.dispatch.guard.RefusedAddressException}, an
 * {@link UnknownHostException}, which the client passes to the call's callback as it is.
 *
 * <p>Thread-safe (the guard is immutable).
 */
final class GuardedDnsResolver implements DnsResolver {

    private final OutboundGuard guard;

    GuardedDnsResolver(OutboundGuard guard) {
        this.guard = guard;
    }

    @Override
    public InetAddress[] resolve(String host) throws UnknownHostException {
        return guard.allowedAddresses(host).toArray(new InetAddress[0]);
    }

    @Override
    public String resolveCanonicalHostname(String host) throws UnknownHostException {
        return SystemDefaultDnsResolver.INSTANCE.resolveCanonicalHostname(host); // only for authentication schemes
    }
}
