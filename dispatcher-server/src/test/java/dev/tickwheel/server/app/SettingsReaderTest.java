package dev.tickwheel.server.app;

import dev.tickwheel.server.TickwheelServer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
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
}
