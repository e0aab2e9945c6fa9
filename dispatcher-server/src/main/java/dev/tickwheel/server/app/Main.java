package dev.tickwheel.server.app;

import dev.tickwheel.server.store.SecretKeyMismatchException;
import dev.tickwheel.server.store.UnreadableSecretException;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code java -jar tickwheel-server.jar [--demo] [--flag value ...]}: runs the engine and its HTTP API until Ctrl-C
 * (SIGINT) or SIGTERM, which both stop it gracefully (a JVM shutdown hook).
 * This is the composition root: settings are read here (by {@link SettingsReader}) and nowhere else.
 *
 * <p>At DEBUG ({@code TICKWHEEL_LOG_LEVEL=DEBUG}) it logs a {@link StatusLine} every 5 s, read from memory only.
 *
 * <p>Exit codes: 0 after {@code --help} or a clean stop, 2 for a bad setting (the message says which and why; a
 * secret key that does not match the store's secrets, or a secret that does not decrypt, is one), 3 when another server
 * already runs on the store (one line says so).
 */
public final class Main {

    private static final Logger log = LoggerFactory.getLogger(Main.class);

    private Main() {
    }

    public static void main(String[] args) throws InterruptedException {
        ServerSettings settings;
        try {
            var read = new SettingsReader().read(List.of(args), System.getenv());
            if (read.isEmpty()) {
                System.out.println(SettingsReader.usage());
                return;
            }
            settings = read.get();
        } catch (SettingsReader.InvalidSettingException e) {
            System.err.println("tickwheel: " + e.getMessage());
            System.err.println("run with --help to see every setting");
            System.exit(2);
            return;
        }
        TickwheelApplication app;
        try {
            app = TickwheelApplication.start(settings);
        } catch (dev.tickwheel.server.store.StoreInUseException e) {
            System.err.println("tickwheel: " + e.getMessage());
            System.exit(3);
            return;
        } catch (SecretKeyMismatchException e) {
            System.err.println("tickwheel: " + e.describe(Setting.SECRET_KEY.flag(),
                    Setting.PREVIOUS_SECRET_KEYS.flag()));
            System.exit(2);
            return;
        } catch (UnreadableSecretException e) {
            System.err.println("tickwheel: " + e.getMessage());
            System.exit(2);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            log.info("stopping: HTTP first, then the engine; pending instances stay WAITING in the store");
            app.close();
            stopped.countDown();
        }, "tickwheel-shutdown"));
        while (!stopped.await(5, TimeUnit.SECONDS)) {
            if (!log.isDebugEnabled()) {
                continue;
            }
            try {
                log.debug(StatusLine.of(app.engine()).format());
            } catch (RuntimeException e) {
                log.debug("status line failed: {}", e.toString()); // e.g. while stopping
            }
        }
    }
}
