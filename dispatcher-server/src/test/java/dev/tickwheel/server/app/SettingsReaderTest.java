package dev.tickwheel.server.app;

import dev.tickwheel.server.TickwheelServer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.dispatch.alert.AlertSettings;
import dev.tickwheel.server.store.SecretKeys;
import dev.tickwheel.server.store.TestKeys;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SettingsReaderTest {

    private final SettingsReader reader = new SettingsReader();

    @TempDir
    Path dir;

    @Test
    void read_nothingGiven_usesDefaults() {
        ServerSettings settings = reader.read(List.of(), Map.of()).orElseThrow();
        assertEquals("127.0.0.1", settings.api().host());
        assertEquals(7700, settings.api().port());
        assertNull(settings.api().token());
        assertEquals(TickwheelServer.DEFAULT_LOADER_PERIOD, settings.loaderPeriod());
        assertEquals(false, settings.demo());
    }

    @Test
    void read_flagEnvAndFile_flagWinsOverEnvOverFile() throws Exception {
        Path file = dir.resolve("tw.properties");
        Files.writeString(file, "port=7001\nnode-id=3\nloader-period-ms=1000\n");
        ServerSettings settings = reader.read(List.of("--port", "7003", "--demo"),
                Map.of("TICKWHEEL_PORT", "7002", "TICKWHEEL_NODE_ID", "4", "TICKWHEEL_CONFIG", file.toString()))
                .orElseThrow();
        assertEquals(7003, settings.api().port());
        assertEquals(java.util.OptionalInt.of(4), settings.nodeId());
        assertEquals(1000, settings.loaderPeriod().toMillis());
        assertTrue(settings.demo());
        assertTrue(settings.api().demoEcho());
    }

    @Test
    void read_help_returnsEmpty() {
        assertTrue(reader.read(List.of("--help"), Map.of()).isEmpty());
    }

    @Test
    void usage_listsEverySettingWithItsDefault() {
        String usage = SettingsReader.usage();
        for (Setting setting : Setting.values()) {
            assertTrue(usage.contains(setting.flag()), setting.flag());
            assertTrue(usage.contains(setting.envVar()), setting.envVar());
        }
        assertTrue(usage.contains("7700"));
    }

    @Test
    void usage_listsTheLogLevelVariableAndBothStopSignals() {
        String usage = SettingsReader.usage();
        assertTrue(usage.contains("TICKWHEEL_LOG_LEVEL"), usage);
        assertTrue(usage.contains("Ctrl-C (SIGINT)"), usage);
        assertTrue(usage.contains("SIGTERM"), usage);
        assertTrue(usage.contains("--help"), usage);
    }

    @Test
    void read_publicHostWithoutToken_refusesNamingTheReason() {
        var e = assertThrows(SettingsReader.InvalidSettingException.class,
                () -> reader.read(List.of("--host", "0.0.0.0"), Map.of()));
        assertTrue(e.getMessage().contains("token"), e.getMessage());
        assertEquals("0.0.0.0", reader.read(List.of("--host", "0.0.0.0"), Map.of("TICKWHEEL_TOKEN", "t"))
                .orElseThrow().api().host());
    }

    @Test
    void read_badValues_nameTheSettingAndValue() {
        var port = assertThrows(SettingsReader.InvalidSettingException.class,
                () -> reader.read(List.of("--port=seventy"), Map.of()));
        assertTrue(port.getMessage().contains("port") && port.getMessage().contains("seventy"), port.getMessage());
        var unknown = assertThrows(SettingsReader.InvalidSettingException.class,
                () -> reader.read(List.of("--prot", "1"), Map.of()));
        assertTrue(unknown.getMessage().contains("--prot"), unknown.getMessage());
        var window = assertThrows(SettingsReader.InvalidSettingException.class,
                () -> reader.read(List.of("--load-window-ms", "1000"), Map.of()));
        assertTrue(window.getMessage().contains("loadWindow"), window.getMessage());
    }

    @Test
    void read_retention_defaultsAndEveryWayToSetIt() throws Exception {
        var defaults = reader.read(List.of(), Map.of()).orElseThrow().retention();
        assertEquals(dev.tickwheel.server.schedule.RetentionPurge.Settings.DEFAULTS, defaults);
        assertEquals(7, defaults.defaultDays());
        assertEquals(500, defaults.batchSize());
        assertEquals(java.time.Duration.ofMinutes(1), defaults.interval());
        Path file = dir.resolve("retention.properties");
        Files.writeString(file, "retention-batch-size=2000\n");
        var set = reader.read(List.of("--retention-days", "30", "--config", file.toString()),
                Map.of("TICKWHEEL_RETENTION_INTERVAL_MS", "300000")).orElseThrow();
        assertEquals(30, set.retention().defaultDays());
        assertEquals(2000, set.retention().batchSize());
        assertEquals(java.time.Duration.ofMinutes(5), set.retention().interval());
        assertTrue(set.describe().contains("retention-days=30"), set.describe());
        assertEquals(set.retention(), set.engineBuilder().build().config().retention());
    }

    @Test
    void read_retentionOutOfRange_namesTheSettingTheValueAndItsSource() {
        for (List<String> args : List.of(List.of("--retention-days", "0"), List.of("--retention-days", "3651"),
                List.of("--retention-batch-size", "0"), List.of("--retention-batch-size", "10001"),
                List.of("--retention-interval-ms", "0"))) {
            var e = assertThrows(SettingsReader.InvalidSettingException.class, () -> reader.read(args, Map.of()));
            assertTrue(e.getMessage().startsWith(args.get(0).substring(2) + " must be in "), e.getMessage());
            assertTrue(e.getMessage().contains("got " + args.get(1) + " (from " + args.get(0) + ")"), e.getMessage());
        }
        var env = assertThrows(SettingsReader.InvalidSettingException.class,
                () -> reader.read(List.of(), Map.of("TICKWHEEL_RETENTION_DAYS", "week")));
        assertTrue(env.getMessage().contains("retention-days") && env.getMessage().contains("'week'")
                && env.getMessage().contains("TICKWHEEL_RETENTION_DAYS"), env.getMessage());
    }

    @Test
    void read_storeTimeout_defaultThenEnvironmentThenFlag_reachesTheEngine() {
        ServerSettings defaults = reader.read(List.of(), Map.of()).orElseThrow();
        assertEquals(TickwheelServer.DEFAULT_STORE_TIMEOUT, defaults.storeTimeout());
        assertEquals(2_000, defaults.storeTimeout().toMillis());

        ServerSettings env = reader.read(List.of(), Map.of("TICKWHEEL_STORE_TIMEOUT_MS", "750")).orElseThrow();
        assertEquals(750, env.storeTimeout().toMillis());
        ServerSettings flag = reader.read(List.of("--store-timeout-ms", "5000"),
                Map.of("TICKWHEEL_STORE_TIMEOUT_MS", "750")).orElseThrow();
        assertEquals(5_000, flag.storeTimeout().toMillis());
        assertEquals(flag.storeTimeout(), flag.engineBuilder().build().config().storeTimeout());
        assertTrue(flag.describe().contains("store-timeout-ms=5000"), flag.describe());
    }

    @Test
    void read_storeTimeoutBelowThePoolsMinimum_namesTheSettingTheValueAndItsSource() {
        var e = assertThrows(SettingsReader.InvalidSettingException.class,
                () -> reader.read(List.of("--store-timeout-ms", "249"), Map.of()));
        assertTrue(e.getMessage().startsWith("store-timeout-ms must be in 250.."), e.getMessage());
        assertTrue(e.getMessage().contains("got 249 (from --store-timeout-ms)"), e.getMessage());
    }

    @Test
    void read_alertSettings_defaultsThenFlagsAndEnvironment() {
        assertEquals(AlertSettings.DEFAULTS, reader.read(List.of(), Map.of()).orElseThrow().alerts());

        ServerSettings settings = reader.read(List.of("--alert-min-interval-ms", "0"),
                Map.of("TICKWHEEL_ALERT_URL", "https://alerts.example.com/tw",
                        "TICKWHEEL_ALERT_SECRET", "alert-secret-0123456789",
                        "TICKWHEEL_ALERT_FAILURE_THRESHOLD", "3",
                        "TICKWHEEL_ALERT_FAILURE_WINDOW_MS", "60000")).orElseThrow();

        AlertSettings alerts = settings.alerts();
        assertEquals("https://alerts.example.com/tw", alerts.url());
        assertEquals("alert-secret-0123456789", alerts.secret());
        assertEquals(3, alerts.failureThreshold());
        assertEquals(Duration.ofMinutes(1), alerts.failureWindow());
        assertEquals(Duration.ZERO, alerts.minInterval());
        assertFalse(settings.describe().contains("alert-secret-0123456789"), settings.describe());
        assertTrue(settings.describe().contains("alert-secret=set"), settings.describe());
    }

    @Test
    void read_badAlertSettings_nameTheSettingTheValueAndWhereItCameFrom() {
        assertRefused(List.of("--alert-url", "ftp://example.com/x"), Map.of(), "alert-url", "ftp://example.com/x",
                "--alert-url");
        assertRefused(List.of("--alert-url=not a url"), Map.of(), "alert-url", "not a url", "--alert-url");
        var secret = assertRefused(List.of(), Map.of("TICKWHEEL_ALERT_SECRET", "too-short"), "alert-secret",
                "9 characters", "TICKWHEEL_ALERT_SECRET");
        assertFalse(secret.getMessage().contains("too-short"), "the secret is not echoed: " + secret.getMessage());
        assertRefused(List.of("--alert-failure-threshold", "0"), Map.of(), "alert-failure-threshold", ": 0",
                "--alert-failure-threshold");
        assertRefused(List.of("--alert-failure-threshold", "99999999999"), Map.of(), "alert-failure-threshold",
                "1..1000", "--alert-failure-threshold");
        assertRefused(List.of("--alert-failure-window-ms", "ten"), Map.of(), "alert-failure-window-ms", "'ten'",
                "--alert-failure-window-ms");
        assertRefused(List.of("--alert-failure-window-ms", "500"), Map.of(), "alert-failure-window-ms", "500 ms",
                "--alert-failure-window-ms");
        assertRefused(List.of(), Map.of("TICKWHEEL_ALERT_MIN_INTERVAL_MS", "-1"), "alert-min-interval-ms", "-1 ms",
                "TICKWHEEL_ALERT_MIN_INTERVAL_MS");
    }

    @Test
    void read_publicUrl_defaultNone_setByFlagOrEnvironment_refusedUnlessAnHttpUrl() {
        assertEquals(null, reader.read(List.of(), Map.of()).orElseThrow().publicUrl());
        assertEquals("https://jobs.example.com/tw", reader.read(List.of("--public-url", "https://jobs.example.com/tw"),
                Map.of()).orElseThrow().publicUrl());
        assertEquals("http://10.0.0.7:7700", reader.read(List.of(),
                Map.of("TICKWHEEL_PUBLIC_URL", "http://10.0.0.7:7700")).orElseThrow().publicUrl());
        assertRefused(List.of("--public-url", "ftp://example.com"), Map.of(), "public-url", "ftp://example.com",
                "--public-url");
        assertRefused(List.of(), Map.of("TICKWHEEL_PUBLIC_URL", "http://x.example/?a=1"), "public-url",
                "TICKWHEEL_PUBLIC_URL");
    }

    @Test
    void read_secretKeys_defaultNone_setByFlagEnvironmentOrFile_shownByKeyIdOnly() throws Exception {
        String keyA = TestKeys.key(1);
        String keyB = TestKeys.key(2);
        assertEquals(SecretKeys.NONE, reader.read(List.of(), Map.of()).orElseThrow().secretKeys());

        ServerSettings byEnv = reader.read(List.of(), Map.of("TICKWHEEL_SECRET_KEY", keyB,
                "TICKWHEEL_PREVIOUS_SECRET_KEYS", " " + keyA + " , ")).orElseThrow();
        String idA = TestKeys.idOf(1);
        String idB = byEnv.secretKeys().currentKeyId().orElseThrow();
        assertEquals(List.of(idA), byEnv.secretKeys().previousKeyIds());
        assertTrue(byEnv.describe().contains("secret-key=key id " + idB + " previous-secret-keys=[" + idA + "]"),
                byEnv.describe());
        assertFalse(byEnv.describe().contains(keyA) || byEnv.describe().contains(keyB), byEnv.describe());
        assertFalse(byEnv.toString().contains(keyA) || byEnv.toString().contains(keyB), byEnv.toString());

        Path file = dir.resolve("keys.properties");
        Files.writeString(file, "secret-key=" + keyA + "\n");
        assertEquals(idA, reader.read(List.of("--config", file.toString()), Map.of()).orElseThrow().secretKeys()
                .currentKeyId().orElseThrow());
        assertEquals(idB, reader.read(List.of("--secret-key", keyB), Map.of("TICKWHEEL_SECRET_KEY", keyA))
                .orElseThrow().secretKeys().currentKeyId().orElseThrow(), "the flag wins");
    }

    @Test
    void read_badSecretKeys_nameTheSettingWhatItGotAndItsSource_neverTheValue() {
        String typed = "correct horse battery staple";
        var e = assertRefused(List.of("--secret-key", typed), Map.of(), "secret-key must be 32 random bytes as base64",
                "openssl rand -base64 32", "got 28 characters that are not base64", "(from --secret-key)");
        assertFalse(e.getMessage().contains(typed), e.getMessage());
        String short16 = java.util.Base64.getEncoder().encodeToString(new byte[16]);
        e = assertRefused(List.of(), Map.of("TICKWHEEL_SECRET_KEY", short16), "secret-key", "got 16 bytes",
                "(from TICKWHEEL_SECRET_KEY)");
        assertFalse(e.getMessage().contains(short16), e.getMessage());
        assertRefused(List.of("--previous-secret-keys", short16), Map.of(), "previous-secret-keys needs secret-key",
                "(from --previous-secret-keys)");
    }

    private SettingsReader.InvalidSettingException assertRefused(List<String> args, Map<String, String> env,
                                                                 String... expectedParts) {
        var e = assertThrows(SettingsReader.InvalidSettingException.class, () -> reader.read(args, env));
        for (String part : expectedParts) {
            assertTrue(e.getMessage().contains(part), "'" + part + "' in: " + e.getMessage());
        }
        return e;
    }
}
