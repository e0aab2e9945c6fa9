package dev.tickwheel.server.dispatch.guard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.net.InetAddresses;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** The outbound guard's policy: what is refused, what the allow-list lets through, what a refusal says. */
class OutboundGuardTest {

    /** Names resolve through this table only; an unknown name has no address. */
    private static final Map<String, List<String>> DNS = Map.of(
            "db.internal", List.of("10.0.0.5"),
            "public.example.com", List.of("203.0.113.7"),
            "mixed.example.com", List.of("10.0.0.6", "203.0.113.8"),
            "a.internal.example.com", List.of("10.9.9.9"),
            "metadata.example.com", List.of("169.254.169.254"));

    private static InetAddress[] resolve(String host) throws UnknownHostException {
        List<String> addresses = DNS.get(host);
        if (addresses == null) {
            throw new UnknownHostException(host);
        }
        return addresses.stream().map(InetAddresses::forString).toArray(InetAddress[]::new);
    }

    private static final OutboundGuard GUARD = OutboundGuard.builder().resolver(OutboundGuardTest::resolve)
            .howToAllow("--allow-targets").build();

    private static OutboundGuard allowing(String... entries) {
        return OutboundGuard.builder().resolver(OutboundGuardTest::resolve).allowAll(List.of(entries)).build();
    }

    /** The refused range named for a literal address, or "allowed". */
    private static String verdict(OutboundGuard guard, String address) {
        try {
            guard.allowedAddresses(address);
            return "allowed";
        } catch (RefusedAddressException refused) {
            return refused.refusal().range();
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    @ParameterizedTest(name = "{0} is refused: {1}")
    @CsvSource(delimiter = '|', value = {
            // each range: its first and last address
            "0.0.0.0         | unspecified address range 0.0.0.0/8",
            "0.255.255.255   | unspecified address range 0.0.0.0/8",
            "127.0.0.0       | loopback range 127.0.0.0/8",
            "127.0.0.1       | loopback range 127.0.0.0/8",
            "127.255.255.255 | loopback range 127.0.0.0/8",
            "169.254.0.0     | link-local range 169.254.0.0/16",
            "169.254.255.255 | link-local range 169.254.0.0/16",
            "10.0.0.0        | private range 10.0.0.0/8",
            "10.255.255.255  | private range 10.0.0.0/8",
            "172.16.0.0      | private range 172.16.0.0/12",
            "172.31.255.255  | private range 172.16.0.0/12",
            "192.168.0.0     | private range 192.168.0.0/16",
            "192.168.255.255 | private range 192.168.0.0/16",
            "100.64.0.0      | shared (CGNAT) range 100.64.0.0/10",
            "100.127.255.255 | shared (CGNAT) range 100.64.0.0/10",
            "224.0.0.0       | multicast range 224.0.0.0/4",
            "239.255.255.255 | multicast range 224.0.0.0/4",
            "240.0.0.0       | reserved range 240.0.0.0/4",
            "255.255.255.255 | reserved range 240.0.0.0/4",
            "::              | unspecified address ::",
            "::1             | loopback address ::1",
            "[::1]           | loopback address ::1",
            "fe80::          | link-local range fe80::/10",
            "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff | link-local range fe80::/10",
            "fc00::          | private range fc00::/7",
            "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff | private range fc00::/7",
            "fec0::1         | site-local (private) range fec0::/10",
            "ff02::1         | multicast range ff00::/8",
            // IPv6 forms carrying an IPv4 address are judged by it
            "::ffff:127.0.0.1  | loopback range 127.0.0.0/8",
            "::ffff:10.1.2.3   | private range 10.0.0.0/8",
            "::ffff:a9fe:a9fe  | cloud metadata address 169.254.169.254",
            "::10.1.2.3        | private range 10.0.0.0/8",
            "64:ff9b::10.1.2.3 | private range 10.0.0.0/8",
            "64:ff9b::7f00:1   | loopback range 127.0.0.0/8",
            // the metadata services, named as such rather than by their enclosing range
            "169.254.169.254 | cloud metadata address 169.254.169.254",
            "fd00:ec2::254   | cloud metadata address fd00:ec2::254",
            "100.100.100.200 | cloud metadata address 100.100.100.200"})
    void refusedAddress_namesItsRange(String address, String range) {
        assertEquals(range, verdict(GUARD, address));
    }

    @ParameterizedTest(name = "{0} is allowed")
    @ValueSource(strings = {
            // the addresses just outside each IPv4 range
            "1.0.0.0", "126.255.255.255", "128.0.0.0", "9.255.255.255", "11.0.0.0", "169.253.255.255",
            "169.255.0.0", "172.15.255.255", "172.32.0.0", "192.167.255.255", "192.169.0.0", "100.63.255.255",
            "100.128.0.0", "223.255.255.255",
            // and of each IPv6 range
            "::2", "fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
            "2001:db8::1", "fe00::1", "2606:4700::1111",
            "::ffff:8.8.8.8", "64:ff9b::8.8.8.8", "203.0.113.7"})
    void publicAddress_isAllowed(String address) {
        assertEquals("allowed", verdict(GUARD, address));
    }

    @Test
    void ipv4MappedAddressBuiltAsIpv6_isJudgedByItsIpv4Address() throws UnknownHostException {
        byte[] mapped = InetAddresses.forString("::1").getAddress();
        mapped[10] = (byte) 0xff;
        mapped[11] = (byte) 0xff;
        mapped[12] = 10;
        mapped[15] = 1;
        Inet6Address asIpv6 = Inet6Address.getByAddress(null, mapped, null);

        assertEquals("private range 10.0.0.0/8", RefusedRanges.of(asIpv6).orElseThrow().describe());
    }

    @Test
    void refusal_message_namesAddressHostRangeAndSetting() {
        RefusedAddressException refused = assertThrows(RefusedAddressException.class,
                () -> GUARD.allowedAddresses("db.internal"));

        assertEquals("target address 10.0.0.5 (of host db.internal) is refused by the outbound guard: private range"
                + " 10.0.0.0/8; allow it with --allow-targets", refused.getMessage());
    }

    @Test
    void literalRefusal_namesNoHost() {
        assertEquals(Optional.of("target address 10.0.0.5 is refused by the outbound guard: private range 10.0.0.0/8;"
                + " allow it with --allow-targets"),
                GUARD.check("http://10.0.0.5:8080/hook").map(OutboundGuard.Refusal::message));
    }

    @Test
    void check_nameResolvingToPrivateAddress_isRefused() {
        Optional<OutboundGuard.Refusal> refusal = GUARD.check("https://db.internal/hook");

        assertEquals("db.internal", refusal.orElseThrow().host());
        assertEquals(InetAddresses.forString("10.0.0.5"), refusal.orElseThrow().address());
    }

    @Test
    void check_nameThatDoesNotResolve_isNotRefused() {
        assertEquals(Optional.empty(), GUARD.check("https://later.example.com/hook"));
    }

    @Test
    void check_ipv6LiteralUrl_isJudged() {
        assertEquals("loopback address ::1", GUARD.check("http://[::1]:9/x").orElseThrow().range());
    }

    @Test
    void hostWithSomeRefusedAddresses_isCalledOnTheAllowedOnesOnly() throws UnknownHostException {
        assertEquals(List.of(InetAddresses.forString("203.0.113.8")), GUARD.allowedAddresses("mixed.example.com"));
        assertEquals(Optional.empty(), GUARD.check("http://mixed.example.com/"));
    }

    @Test
    void unknownHost_isUnknownNotRefused() {
        UnknownHostException e = assertThrows(UnknownHostException.class, () -> GUARD.allowedAddresses("nx.test"));
        assertFalse(e instanceof RefusedAddressException);
    }

    @Test
    void allowListCidr_letsItsAddressesThrough_andNoOthers() {
        OutboundGuard guard = allowing("10.0.0.0/24", "fd12:3456::/32");

        assertEquals("allowed", verdict(guard, "10.0.0.0"));
        assertEquals("allowed", verdict(guard, "10.0.0.255"));
        assertEquals("private range 10.0.0.0/8", verdict(guard, "10.0.1.0"));
        assertEquals("allowed", verdict(guard, "fd12:3456:ffff::1"));
        assertEquals("private range fc00::/7", verdict(guard, "fd12:3457::1"));
        assertEquals(Optional.empty(), guard.check("http://db.internal/"));
    }

    @Test
    void allowListAddress_letsThatAddressThrough_alsoInItsMappedForm() {
        OutboundGuard guard = allowing("127.0.0.1");

        assertEquals("allowed", verdict(guard, "127.0.0.1"));
        assertEquals("allowed", verdict(guard, "::ffff:127.0.0.1"));
        assertEquals("loopback range 127.0.0.0/8", verdict(guard, "127.0.0.2"));
    }

    @Test
    void metadataAddress_isAllowedOnlyByAnEntryOfExactlyIt() {
        assertEquals("cloud metadata address 169.254.169.254", verdict(allowing("169.254.0.0/16"), "169.254.169.254"));
        assertEquals("allowed", verdict(allowing("169.254.0.0/16"), "169.254.169.253"));
        assertEquals("cloud metadata address 100.100.100.200", verdict(allowing("100.64.0.0/10"), "100.100.100.200"));
        assertEquals("allowed", verdict(allowing("169.254.169.254/32"), "169.254.169.254"));
        assertEquals("allowed", verdict(allowing("fd00:ec2::254"), "fd00:ec2::254"));
    }

    @Test
    void allowListHostPattern_letsTheNameThroughWhateverItResolvesTo() throws UnknownHostException {
        OutboundGuard guard = allowing("db.internal", "*.internal.example.com", "metadata.example.com");

        assertEquals(List.of(InetAddresses.forString("10.0.0.5")), guard.allowedAddresses("db.internal"));
        assertEquals(List.of(InetAddresses.forString("10.9.9.9")), guard.allowedAddresses("a.internal.example.com"));
        assertEquals(Optional.empty(), guard.check("http://metadata.example.com/"));
        assertEquals("private range 10.0.0.0/8", verdict(guard, "10.0.0.5"), "a pattern never allows a literal");
    }

    @ParameterizedTest(name = "*.example.com matches {0}: {1}")
    @CsvSource({"a.example.com, true", "a.b.example.com, true", "A.EXAMPLE.COM., true", "example.com, false",
            "evil-example.com, false", "aexample.com, false", "example.com.evil.net, false", ".example.com, false"})
    void wildcardPattern_matchesNamesUnderItsDomainOnly(String host, boolean matches) {
        assertEquals(matches, HostPattern.parse("*.example.com").matches(host));
    }

    @Test
    void exactPattern_matchesOnlyItsName() {
        HostPattern pattern = HostPattern.parse("hooks.example.com");
        assertTrue(pattern.matches("hooks.example.com"));
        assertFalse(pattern.matches("a.hooks.example.com"));
        assertFalse(pattern.matches("hooks.example.com.evil.net"));
    }

    @ParameterizedTest(name = "entry ''{0}'' is refused")
    @ValueSource(strings = {"10.0.0.1/8", "10.0.0.0/33", "10.0.0.0/", "fe80::/129", "*", "*.", "a.*.example.com",
            "http://hooks.example.com", "hooks.example.com:443", "10.1", "-a.example.com", "a b"})
    void allowListEntry_thatIsNoCidrAddressOrPattern_isRefusedNamingIt(String entry) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> OutboundGuard.builder().allow(entry));
        assertTrue(e.getMessage().startsWith("allowTargets entry '" + entry + "'"), e.getMessage());
    }

    @Test
    void cidrWithHostBits_suggestsTheNetwork() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> OutboundGuard.builder().allow("127.0.0.1/8"));
        assertTrue(e.getMessage().endsWith("did you mean 127.0.0.0/8?"), e.getMessage());
    }

    @Test
    void off_allowsEverything_andChecksNothing() throws UnknownHostException {
        assertFalse(OutboundGuard.OFF.enabled());
        assertEquals(List.of(InetAddresses.forString("127.0.0.1")), OutboundGuard.OFF.allowedAddresses("127.0.0.1"));
        assertEquals(Optional.empty(), OutboundGuard.OFF.check("http://169.254.169.254/latest/meta-data"));
        assertEquals("off", OutboundGuard.OFF.toString());
    }

    @Test
    void describe_listsTheAllowList() {
        assertTrue(allowing("10.0.0.0/24", "*.internal.example.com").toString()
                .endsWith("allowing 10.0.0.0/24, *.internal.example.com"));
    }
}
