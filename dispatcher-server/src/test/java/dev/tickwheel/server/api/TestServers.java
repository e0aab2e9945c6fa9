package dev.tickwheel.server.api;

import dev.tickwheel.server.TickwheelServer;
import dev.tickwheel.server.app.OutboundSettings;
import dev.tickwheel.server.app.ServerSettings;
import dev.tickwheel.server.app.TickwheelApplication;
import dev.tickwheel.server.dispatch.alert.AlertSettings;
import java.nio.file.Path;
import java.time.Duration;

/** Starts a whole server (engine, metrics, API) in-process on a free port with an H2 store under a temp dir. */
final class TestServers {

    private TestServers() {
    }

    static TickwheelApplication start(Path dir, String token, boolean demo) {
        return start(dir, token, demo, AlertSettings.DEFAULTS);
    }

    static TickwheelApplication start(Path dir, String token, boolean demo, AlertSettings alerts) {
        return TickwheelApplication.start(settings(dir, token, demo, alerts));
    }

    /** A server on 127.0.0.1 with these outbound guard settings. */
    static TickwheelApplication start(Path dir, OutboundSettings outbound) {
        return TickwheelApplication.start(settings(dir, null, false, AlertSettings.DEFAULTS).withOutbound(outbound));
    }

    private static ServerSettings settings(Path dir, String token, boolean demo, AlertSettings alerts) {
        String jdbcUrl = "jdbc:h2:file:" + dir.resolve("tw").toAbsolutePath();
        return new ServerSettings(new ApiSettings("127.0.0.1", 0, token, demo), jdbcUrl,
                java.util.OptionalInt.empty(), Duration.ofSeconds(5), Duration.ofSeconds(1), Duration.ofSeconds(15),
                Duration.ofSeconds(30), Duration.ofMinutes(2), TickwheelServer.DEFAULT_STORE_TIMEOUT,
                dev.tickwheel.server.app.DispatchSettings.DEFAULTS, demo,
                dev.tickwheel.server.schedule.RetentionPurge.Settings.DEFAULTS, alerts, null);
    }
}
