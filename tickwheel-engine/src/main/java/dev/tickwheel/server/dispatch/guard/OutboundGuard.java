package dev.tickwheel.server.dispatch.guard;

import com.google.common.net.InetAddresses;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Which addresses webhook and alert calls may reach: the policy against calls into the private network (server-side
 * request forgery). Off, everything is allowed. On, the addresses of {@link RefusedRanges} (loopback, link-local,
 * private, CGNAT, unspecified, multicast, reserved, the cloud metadata addresses, and IPv6 forms carrying any of
 * these) are refused unless the allow-list lets them through:
 * <ul>
 *   <li>a CIDR block or address entry ({@code 10.1.0.0/16}, {@code fd12::/16}, {@code 127.0.0.1}) lets the addresses
 *       in it through. A metadata address only by an entry of exactly that address ({@code 169.254.169.254/32}):
 *       allowing a network for its services must not open its metadata service too;</li>
 *   <li>a host pattern ({@code hooks.example.com}, {@code *.internal.example.com}, {@code localhost}) lets that name
 *       through whatever it resolves to.</li>
 * </ul>
 *
 * <h2>Where it is checked</h2>
 * <ul>
 *   <li>At connect time, on the address connected to: the webhook transport's resolver is
 *       {@link #allowedAddresses}, which resolves the host and keeps its allowed addresses only, so an answer that
 *       changed since any earlier check (DNS rebinding) is judged again, and an IP-literal URL is judged the same way
 *       (Apache HttpClient's async client resolves a literal through the same resolver). A host with no allowed
 *       address fails the call with {@link RefusedAddressException}.</li>
 *   <li>When a job is created or changed, and when the server starts with an alert URL: {@link #check} judges the
 *       URL's literal address, or the addresses its name resolves to now. A name that does not resolve is not refused
 *       (its DNS may come later; the connect-time check still applies).</li>
 * </ul>
 * A host whose addresses are partly refused is called on its allowed ones only.
 *
 * <p>Immutable; thread-safe if its {@link Resolver} is (the JDK's is).
 *
 * <p>Caveats: it judges addresses, not routes: a public address that a proxy or NAT on the way maps into the private
 * network is not caught. Redirects are not its business; the transport never follows them.
 */
public final class OutboundGuard {

    /** Resolves a host name to its addresses; the JDK's resolver by default, a fixed table in tests. */
    @FunctionalInterface
    public interface Resolver {
        /** @throws UnknownHostException if the name has no address */
        InetAddress[] resolve(String host) throws UnknownHostException;
    }

    /**
     * One refused address.
     *
     * @param address    the address refused
     * @param host       the name it was resolved from, or null for an IP-literal URL
     * @param range      what the address is, e.g. {@code private range 10.0.0.0/8}
     * @param howToAllow the setting that allows it, e.g. {@code --allow-targets}
     */
    public record Refusal(InetAddress address, String host, String range, String howToAllow) {

        /**
         * {@code target address 10.0.0.5 (of host db.internal) is refused by the outbound guard: private range
         * 10.0.0.0/8; allow it with --allow-targets}
         */
        public String message() {
            return "target address " + InetAddresses.toAddrString(address)
                    + (host == null ? "" : " (of host " + host + ")") + " is refused by the outbound guard: " + range
                    + "; allow it with " + howToAllow;
        }
    }

    /** No guard: every address is allowed, nothing is checked. */
    public static final OutboundGuard OFF = new OutboundGuard(false, List.of(), List.of(), InetAddress::getAllByName,
            "");

    private final boolean enabled;
    private final List<AddressBlock> allowedBlocks;
    private final List<HostPattern> allowedHosts;
    private final Resolver resolver;
    private final String howToAllow;

    private OutboundGuard(boolean enabled, List<AddressBlock> allowedBlocks, List<HostPattern> allowedHosts,
                          Resolver resolver, String howToAllow) {
        this.enabled = enabled;
        this.allowedBlocks = List.copyOf(allowedBlocks);
        this.allowedHosts = List.copyOf(allowedHosts);
        this.resolver = resolver;
        this.howToAllow = howToAllow;
    }

    /** A guard that is on, allowing what the builder's entries allow. */
    public static Builder builder() {
        return new Builder();
    }

    /** Whether addresses are judged at all. */
    public boolean enabled() {
        return enabled;
    }

    /**
     * The addresses of {@code host} that may be connected to, in the resolver's order.
     *
     * @param host a name or an IP literal (IPv6 with or without brackets), as in a URL
     * @throws RefusedAddressException if it has addresses and the guard refuses all of them
     * @throws UnknownHostException    if it has none
     */
    public List<InetAddress> allowedAddresses(String host) throws UnknownHostException {
        String bare = unbracketed(host);
        if (InetAddresses.isInetAddress(bare)) {
            InetAddress literal = InetAddresses.forString(bare);
            Optional<Refusal> refusal = judge(null, literal);
            if (refusal.isPresent()) {
                throw new RefusedAddressException(refusal.get());
            }
            return List.of(literal);
        }
        InetAddress[] resolved = resolver.resolve(bare);
        if (resolved == null || resolved.length == 0) {
            throw new UnknownHostException(bare);
        }
        if (!enabled || hostAllowed(bare)) {
            return List.of(resolved);
        }
        List<InetAddress> allowed = new ArrayList<>(resolved.length);
        Refusal first = null;
        for (InetAddress address : resolved) {
            Optional<Refusal> refusal = judge(bare, address);
            if (refusal.isEmpty()) {
                allowed.add(address);
            } else if (first == null) {
                first = refusal.get();
            }
        }
        if (allowed.isEmpty()) {
            throw new RefusedAddressException(first);
        }
        return allowed;
    }

    /**
     * Judges a URL as it would be called now: its literal address, or the addresses its name resolves to. A name that
     * does not resolve, and a URL without a host, are not refused (the URL's shape is checked elsewhere).
     *
     * @return the refusal of its (first) address if the guard refuses every address it has, else empty
     */
    public Optional<Refusal> check(String url) {
        if (!enabled || url == null) {
            return Optional.empty();
        }
        String host;
        try {
            host = new URI(url).getHost();
        } catch (java.net.URISyntaxException e) {
            return Optional.empty();
        }
        if (host == null) {
            return Optional.empty();
        }
        try {
            allowedAddresses(host);
            return Optional.empty();
        } catch (RefusedAddressException refused) {
            return Optional.of(refused.refusal());
        } catch (UnknownHostException | RuntimeException unresolved) { // no DNS yet: judged again at connect time
            return Optional.empty();
        }
    }

    private boolean hostAllowed(String host) {
        for (HostPattern pattern : allowedHosts) {
            if (pattern.matches(host)) {
                return true;
            }
        }
        return false;
    }

    private Optional<Refusal> judge(String host, InetAddress address) {
        if (!enabled) {
            return Optional.empty();
        }
        Optional<RefusedRanges.Range> range = RefusedRanges.of(address);
        if (range.isEmpty()) {
            return Optional.empty();
        }
        InetAddress judged = RefusedRanges.embeddedIpv4(address).orElse(address);
        boolean metadata = range.get().kind().equals(RefusedRanges.METADATA);
        for (AddressBlock block : allowedBlocks) {
            if (block.contains(judged) && (!metadata || block.isSingleAddress())) {
                return Optional.empty();
            }
        }
        return Optional.of(new Refusal(address, host, range.get().describe(), howToAllow));
    }

    private static String unbracketed(String host) {
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    /** For the effective configuration's log line: {@code off}, or {@code on, allowing 10.1.0.0/16, *.example.com}. */
    @Override
    public String toString() {
        if (!enabled) {
            return "off";
        }
        List<String> allowed = new ArrayList<>();
        allowedBlocks.forEach(block -> allowed.add(block.toString()));
        allowedHosts.forEach(pattern -> allowed.add(pattern.toString()));
        return "on (loopback, link-local, private, CGNAT, multicast and metadata addresses refused), allowing "
                + (allowed.isEmpty() ? "nothing more" : String.join(", ", allowed));
    }

    /** Builds a guard that is on. Setters validate and name the bad value. Mutable, not thread-safe. */
    public static final class Builder {

        /** What the refusal's message tells the reader to set, unless the composition root names its own setting. */
        public static final String DEFAULT_HOW_TO_ALLOW = "the outbound guard's allow-list";

        private final List<AddressBlock> blocks = new ArrayList<>();
        private final List<HostPattern> hosts = new ArrayList<>();
        private Resolver resolver = InetAddress::getAllByName;
        private String howToAllow = DEFAULT_HOW_TO_ALLOW;

        private Builder() {
        }

        /**
         * Allows one entry: a CIDR block ({@code 10.1.0.0/16}, {@code fd12::/16}), an address ({@code 127.0.0.1}) or a
         * host pattern ({@code hooks.example.com}, {@code *.internal.example.com}).
         *
         * @throws IllegalArgumentException naming the entry, if it is none of these
         */
        public Builder allow(String entry) {
            Objects.requireNonNull(entry, "entry");
            String text = entry.strip();
            if (text.contains("/") || InetAddresses.isInetAddress(text) || InetAddresses.isUriInetAddress(text)) {
                blocks.add(parsed(entry, () -> AddressBlock.parse(text)));
            } else {
                hosts.add(parsed(entry, () -> HostPattern.parse(text)));
            }
            return this;
        }

        /** Allows each entry of {@code entries} (see {@link #allow(String)}); blank entries are skipped. */
        public Builder allowAll(Collection<String> entries) {
            for (String entry : entries) {
                if (!entry.isBlank()) {
                    allow(entry);
                }
            }
            return this;
        }

        /** Resolves host names; the JDK's resolver by default. */
        public Builder resolver(Resolver resolver) {
            this.resolver = Objects.requireNonNull(resolver, "resolver");
            return this;
        }

        /** The setting a refusal's message names, e.g. {@code --allow-targets} or {@code tickwheel.allow-targets}. */
        public Builder howToAllow(String setting) {
            if (setting == null || setting.isBlank()) {
                throw new IllegalArgumentException("howToAllow must not be blank: '" + setting + "'");
            }
            this.howToAllow = setting;
            return this;
        }

        public OutboundGuard build() {
            return new OutboundGuard(true, blocks, hosts, resolver, howToAllow);
        }

        private static <T> T parsed(String entry, java.util.function.Supplier<T> parse) {
            try {
                return parse.get();
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("allowTargets entry '" + entry + "' is not a CIDR block"
                        + " (10.1.0.0/16, fd12::/16), an address or a host pattern (hooks.example.com,"
                        + " *.internal.example.com): " + e.getMessage(), e);
            }
        }
    }
}
