package dev.tickwheel.server.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@code --outbound-guard} and {@code --allow-targets}: when the guard is on, what it allows, the start errors. */
class OutboundSettingsTest {

    private static final List<String> WILDCARD_HOST = List.of("--host", "0.0.0.0", "--token", "a-token-for-tests");

    private final SettingsReader reader = new SettingsReader();

    private ServerSettings read(List<String> args, Map<String, String> env) {
        return reader.read(args, env).orElseThrow();
    }

    private static List<String> plus(List<String> first, String... more) {
        return java.util.stream.Stream.concat(first.stream(), java.util.Arrays.stream(more)).toList();
    }

    @Test
    void auto_loopbackHost_isOff() {
        assertFalse(read(List.of(), Map.of()).outboundGuard().enabled());
    }

    @Test
    void auto_nonLoopbackHost_isOn() {
        assertTrue(read(WILDCARD_HOST, Map.of()).outboundGuard().enabled());
    }

    @Test
    void onAndOff_winOverTheHost() {
        assertTrue(read(List.of("--outbound-guard", "on"), Map.of()).outboundGuard().enabled());
        assertFalse(read(plus(WILDCARD_HOST, "--outbound-guard", "OFF"), Map.of()).outboundGuard().enabled());
    }

    @Test
    void allowTargets_fromTheEnvironment_areAllowed() {
        ServerSettings settings = read(WILDCARD_HOST,
                Map.of("TICKWHEEL_ALLOW_TARGETS", " 10.1.0.0/16, hooks.example.com ,,*.svc.cluster.local"));

        assertEquals(List.of("10.1.0.0/16", "hooks.example.com", "*.svc.cluster.local"),
                settings.outbound().allowTargets());
        assertEquals(Optional.empty(), settings.outboundGuard().check("http://10.1.2.3/hook"));
        assertTrue(settings.outboundGuard().check("http://10.2.0.1/hook").isPresent());
        assertTrue(settings.describe().endsWith("outbound-guard=auto (on) allow-targets=10.1.0.0/16,"
                + "hooks.example.com,*.svc.cluster.local"), settings.describe());
    }

    @Test
    void badAllowTargetsEntry_isAStartErrorNamingItAndItsSource() {
        SettingsReader.InvalidSettingException e = assertThrows(SettingsReader.InvalidSettingException.class,
                () -> reader.read(List.of("--allow-targets", "10.0.0.0/8,10.0.0.1/8"), Map.of()));

        assertTrue(e.getMessage().startsWith("allow-targets: allowTargets entry '10.0.0.1/8'"), e.getMessage());
        assertTrue(e.getMessage().endsWith("did you mean 10.0.0.0/8? (from --allow-targets)"), e.getMessage());
    }

    @Test
    void badMode_isAStartError() {
        SettingsReader.InvalidSettingException e = assertThrows(SettingsReader.InvalidSettingException.class,
                () -> reader.read(List.of("--outbound-guard", "yes"), Map.of("TICKWHEEL_OUTBOUND_GUARD", "x")));

        assertEquals("outbound-guard must be auto, on or off, got 'yes' (from --outbound-guard)", e.getMessage());
    }

    @Test
    void refusedAlertUrl_isAStartErrorInOneLine() {
        SettingsReader.InvalidSettingException e = assertThrows(SettingsReader.InvalidSettingException.class,
                () -> reader.read(plus(WILDCARD_HOST, "--alert-url", "http://169.254.169.254/alerts"), Map.of()));

        assertEquals("alert-url: target address 169.254.169.254 is refused by the outbound guard: cloud metadata"
                + " address 169.254.169.254; allow it with --allow-targets (from --alert-url)", e.getMessage());
        assertFalse(e.getMessage().contains("\n"));
    }

    @Test
    void alertUrl_allowedByTheList_orWithTheGuardOff_starts() {
        assertEquals("http://10.0.0.5/alerts", read(plus(WILDCARD_HOST, "--alert-url", "http://10.0.0.5/alerts",
                "--allow-targets", "10.0.0.5"), Map.of()).alerts().url());
        assertEquals("http://10.0.0.5/alerts", read(List.of("--alert-url", "http://10.0.0.5/alerts"), Map.of())
                .alerts().url());
    }

    @Test
    void demo_withTheGuardOn_allowsTheServersOwnHost() {
        ServerSettings settings = read(plus(WILDCARD_HOST, "--demo"), Map.of());

        assertEquals(Optional.empty(), settings.outboundGuard().check("http://127.0.0.1:7700/demo/echo"));
        assertTrue(settings.outboundGuard().check("http://127.0.0.2:7700/").isPresent());
    }
}
