package dev.tickwheel.server.dispatch.guard;

import com.google.common.net.InetAddresses;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.Objects;

/**
 * A CIDR block, IPv4 or IPv6: {@code 10.0.0.0/8}, {@code fe80::/10}, or one address ({@code /32}, {@code /128}).
 * An IPv4 block never contains an IPv6 address and the reverse: {@link RefusedRanges} turns IPv4-mapped IPv6 forms
 * into their IPv4 address before it asks.
 *
 * <p>Immutable. {@link #contains} is O(address length).
 *
 * @param network      the first address of the block (no bit set past the prefix)
 * @param prefixLength the bits of the prefix, 0..32 for IPv4, 0..128 for IPv6
 */
public record AddressBlock(InetAddress network, int prefixLength) {

    public AddressBlock {
        Objects.requireNonNull(network, "network");
        int bits = network.getAddress().length * 8;
        if (prefixLength < 0 || prefixLength > bits) {
            throw new IllegalArgumentException("prefix length must be in 0.." + bits + ": " + prefixLength);
        }
        byte[] masked = masked(network.getAddress(), prefixLength);
        if (!Arrays.equals(masked, network.getAddress())) {
            throw new IllegalArgumentException(InetAddresses.toAddrString(network) + "/" + prefixLength
                    + " has bits set past its prefix; did you mean " + InetAddresses.toAddrString(toAddress(masked))
                    + "/" + prefixLength + "?");
        }
    }

    /**
     * Parses {@code 10.0.0.0/8}, {@code fd00::/8} or a bare address ({@code 10.1.2.3}, {@code ::1}), which is a
     * block of one.
     *
     * @throws IllegalArgumentException naming the text, if it is none of these
     */
    public static AddressBlock parse(String text) {
        String trimmed = text.strip();
        int slash = trimmed.indexOf('/');
        String address = slash < 0 ? trimmed : trimmed.substring(0, slash);
        if (address.startsWith("[") && address.endsWith("]")) {
            address = address.substring(1, address.length() - 1);
        }
        if (!InetAddresses.isInetAddress(address)) {
            throw new IllegalArgumentException("'" + text + "' is not an IP address or a CIDR block");
        }
        InetAddress network = InetAddresses.forString(address);
        int bits = network.getAddress().length * 8;
        if (slash < 0) {
            return new AddressBlock(network, bits);
        }
        String prefix = trimmed.substring(slash + 1);
        if (!prefix.matches("\\d{1,3}")) {
            throw new IllegalArgumentException("'" + text + "' has no prefix length 0.." + bits + " after its '/'");
        }
        return new AddressBlock(network, Integer.parseInt(prefix));
    }

    /** True if {@code address} is of this block's family and within it. */
    public boolean contains(InetAddress address) {
        byte[] bytes = address.getAddress();
        if (bytes.length != network.getAddress().length) {
            return false;
        }
        return Arrays.equals(masked(bytes, prefixLength), network.getAddress());
    }

    /** True if this block is exactly one address. */
    public boolean isSingleAddress() {
        return prefixLength == network.getAddress().length * 8;
    }

    private static byte[] masked(byte[] address, int prefixLength) {
        byte[] out = address.clone();
        for (int i = 0; i < out.length; i++) {
            int bitsKept = Math.max(0, Math.min(8, prefixLength - i * 8));
            out[i] &= (byte) (0xff << (8 - bitsKept));
        }
        return out;
    }

    private static InetAddress toAddress(byte[] bytes) {
        try {
            return InetAddress.getByAddress(bytes);
        } catch (java.net.UnknownHostException impossible) { // only for a length other than 4 or 16
            throw new IllegalStateException("address of " + bytes.length + " bytes", impossible);
        }
    }

    /** {@code 10.0.0.0/8}, {@code fe80::/10}. */
    @Override
    public String toString() {
        return InetAddresses.toAddrString(network) + "/" + prefixLength;
    }
}
