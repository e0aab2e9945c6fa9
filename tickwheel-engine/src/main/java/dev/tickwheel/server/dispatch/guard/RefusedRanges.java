package dev.tickwheel.server.dispatch.guard;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Optional;

/**
 * The addresses a guarded server does not call unless allowed: this machine, the local networks and the cloud
 * metadata services.
 *
 * <pre>
 *   cloud metadata   169.254.169.254, fd00:ec2::254 (AWS), 100.100.100.200 (Alibaba)
 *   unspecified      0.0.0.0/8, ::/128          (Linux connects 0.0.0.0 to this machine)
 *   loopback         127.0.0.0/8, ::1/128
 *   link-local       169.254.0.0/16, fe80::/10
 *   private          10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7, fec0::/10 (site-local, deprecated)
 *   shared (CGNAT)   100.64.0.0/10
 *   multicast        224.0.0.0/4, ff00::/8
 *   reserved         240.0.0.0/4                 (with the broadcast address 255.255.255.255)
 * </pre>
 *
 * IPv6 forms that carry an IPv4 address are judged by that address: IPv4-mapped ({@code ::ffff:10.0.0.1}),
 * IPv4-compatible ({@code ::10.0.0.1}, deprecated) and NAT64's well-known prefix ({@code 64:ff9b::10.0.0.1}).
 * The first match names the reason, so a metadata address is named as such, not as link-local.
 *
 * <p>Immutable; thread-safe.
 *
 * <p>Caveats: 6to4 ({@code 2002::/16}) and Teredo addresses are not unwrapped; they reach a private IPv4 network only
 * through a relay on it.
 */
final class RefusedRanges {

    /** One refused block and what it is, as the refusal names it. */
    record Range(AddressBlock block, String kind) {
        String describe() {
            return block.isSingleAddress() ? kind + " " + block.toString().substring(0, block.toString().indexOf('/'))
                    : kind + " " + block;
        }
    }

    static final String METADATA = "cloud metadata address";

    static final List<Range> RANGES = List.of(
            range("169.254.169.254", METADATA),
            range("fd00:ec2::254", METADATA),
            range("100.100.100.200", METADATA),
            range("0.0.0.0/8", "unspecified address range"),
            range("::/128", "unspecified address"),
            range("127.0.0.0/8", "loopback range"),
            range("::1/128", "loopback address"),
            range("169.254.0.0/16", "link-local range"),
            range("fe80::/10", "link-local range"),
            range("10.0.0.0/8", "private range"),
            range("172.16.0.0/12", "private range"),
            range("192.168.0.0/16", "private range"),
            range("fc00::/7", "private range"),
            range("fec0::/10", "site-local (private) range"),
            range("100.64.0.0/10", "shared (CGNAT) range"),
            range("224.0.0.0/4", "multicast range"),
            range("ff00::/8", "multicast range"),
            range("240.0.0.0/4", "reserved range"));

    private static final AddressBlock NAT64 = AddressBlock.parse("64:ff9b::/96");

    private RefusedRanges() {
    }

    private static Range range(String block, String kind) {
        return new Range(AddressBlock.parse(block), kind);
    }

    /** The first refused range that holds {@code address} (judged by its IPv4 address if it carries one). */
    static Optional<Range> of(InetAddress address) {
        InetAddress judged = embeddedIpv4(address).orElse(address);
        for (Range range : RANGES) {
            if (range.block().contains(judged)) {
                return Optional.of(range);
            }
        }
        return Optional.empty();
    }

    /**
     * The IPv4 address an IPv6 address carries: IPv4-mapped ({@code ::ffff:a.b.c.d}; the JDK turns most of these into
     * IPv4 addresses already, not those built with {@link Inet6Address#getByAddress}), IPv4-compatible
     * ({@code ::a.b.c.d} but not {@code ::} or {@code ::1}) and NAT64 ({@code 64:ff9b::a.b.c.d}).
     */
    static Optional<InetAddress> embeddedIpv4(InetAddress address) {
        if (!(address instanceof Inet6Address)) {
            return Optional.empty();
        }
        byte[] b = address.getAddress();
        boolean firstTenZero = true;
        for (int i = 0; i < 10; i++) {
            firstTenZero &= b[i] == 0;
        }
        boolean mapped = firstTenZero && b[10] == (byte) 0xff && b[11] == (byte) 0xff;
        boolean compatible = firstTenZero && b[10] == 0 && b[11] == 0
                && (b[12] | b[13] | b[14]) != 0; // ::, ::1 and the like are IPv6's own unspecified and loopback
        if (!mapped && !compatible && !NAT64.contains(address)) {
            return Optional.empty();
        }
        try {
            return Optional.of(InetAddress.getByAddress(new byte[] {b[12], b[13], b[14], b[15]}));
        } catch (UnknownHostException impossible) { // four bytes are always an address
            throw new IllegalStateException(impossible);
        }
    }
}
