package dev.tickwheel.server.app;

import dev.tickwheel.concurrent.PeriodicTaskScheduler;
import dev.tickwheel.server.TickwheelServer;
import dev.tickwheel.server.api.ApiSettings;
import dev.tickwheel.server.dispatch.guard.OutboundGuard;
import dev.tickwheel.server.job.JobOperations;
import dev.tickwheel.server.schedule.RetentionPurge;
import dev.tickwheel.server.store.SecretKeys;
import dev.tickwheel.server.dispatch.alert.AlertSettings;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.function.Supplier;

/**
 * Reads {@link ServerSettings} from command-line flags, environment variables and an optional properties file, the
 * only place the server reads any of them. Precedence: flag, then environment variable, then properties file, then
 * the default of {@link Setting}.
 *
 * <p>Thread-safe (stateless).
 */
public final class SettingsReader {

    /** Thrown for a bad flag or value; the message names the setting, its source and the value. */
    public static final class InvalidSettingException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        InvalidSettingException(String message) {
            super(message);
        }
    }

    /**
     * @return the settings, or empty if {@code --help} was asked for
     * @throws InvalidSettingException naming the setting and value
     */
    public Optional<ServerSettings> read(List<String> args, Map<String, String> env) {
        Map<Setting, String> flags = new EnumMap<>(Setting.class);
        Deque<String> rest = new ArrayDeque<>(args);
        while (!rest.isEmpty()) {
            String arg = rest.removeFirst();
            if (arg.equals("--help") || arg.equals("-h")) {
                return Optional.empty();
            }
            String name = arg;
            String inline = null;
            int eq = arg.indexOf('=');
            if (eq > 0) {
                name = arg.substring(0, eq);
                inline = arg.substring(eq + 1);
            }
            Setting setting = byFlag(name);
            if (setting.isSwitch() && inline == null) {
                flags.put(setting, "true");
            } else if (inline != null) {
                flags.put(setting, inline);
            } else if (rest.isEmpty()) {
                throw new InvalidSettingException(name + " needs a value");
            } else {
                flags.put(setting, rest.removeFirst());
            }
        }
        Properties file = new Properties();
        String configPath = flags.getOrDefault(Setting.CONFIG, env.get(Setting.CONFIG.envVar()));
        if (configPath != null && !configPath.isBlank()) {
            file = load(Path.of(configPath));
        }
        Map<Setting, String> values = new EnumMap<>(Setting.class);
        Map<Setting, String> sources = new EnumMap<>(Setting.class);
        for (Setting setting : Setting.values()) {
            if (flags.containsKey(setting)) {
                values.put(setting, flags.get(setting));
                sources.put(setting, setting.flag());
            } else if (env.get(setting.envVar()) != null && !env.get(setting.envVar()).isBlank()) {
                values.put(setting, env.get(setting.envVar()));
                sources.put(setting, setting.envVar());
            } else if (file.getProperty(setting.key()) != null) {
                values.put(setting, file.getProperty(setting.key()).trim());
                sources.put(setting, configPath + ": " + setting.key());
            } else {
                values.put(setting, setting.defaultValue());
                sources.put(setting, "default of " + setting.key());
            }
        }
        return Optional.of(build(values, sources));
    }

    private static ServerSettings build(Map<Setting, String> values, Map<Setting, String> sources) {
        try {
            String token = values.get(Setting.TOKEN);
            boolean demo = bool(values, sources, Setting.DEMO);
            ApiSettings api = new ApiSettings(values.get(Setting.HOST).trim(),
                    (int) number(values, sources, Setting.PORT), token.isBlank() ? null : token, demo,
                    bool(values, sources, Setting.OPEN_HEALTH));
            ServerSettings settings = new ServerSettings(api, values.get(Setting.DB_URL).trim(),
                    values.get(Setting.NODE_ID).isBlank() ? OptionalInt.empty()
                            : OptionalInt.of((int) number(values, sources, Setting.NODE_ID)),
                    Duration.ofMillis(number(values, sources, Setting.LEASE_TTL_MS)),
                    Duration.ofMillis(number(values, sources, Setting.LEASE_RENEW_MS)),
                    Duration.ofMillis(number(values, sources, Setting.LOADER_PERIOD_MS)),
                    Duration.ofMillis(number(values, sources, Setting.LOAD_WINDOW_MS)),
                    Duration.ofMillis(number(values, sources, Setting.ARM_HORIZON_MS)),
                    Duration.ofMillis(inRange(values, sources, Setting.STORE_TIMEOUT_MS,
                            TickwheelServer.MIN_STORE_TIMEOUT.toMillis(), Integer.MAX_VALUE)),
                    new DispatchSettings(Duration.ofMillis(number(values, sources, Setting.CALL_TIMEOUT_MS)),
                            (int) number(values, sources, Setting.MAX_CALLS_IN_FLIGHT),
                            (int) number(values, sources, Setting.MAX_CALLS_PER_HOST),
                            (int) number(values, sources, Setting.HANDLER_THREADS)), demo,
                    retention(values, sources), alerts(values, sources), publicUrl(values, sources),
                    Duration.ofDays(inRange(values, sources, Setting.AUDIT_RETENTION_DAYS, 1,
                            JobOperations.MAX_RETENTION_DAYS)),
                    secretKeys(values, sources), outbound(values, sources));
            checkAlertUrl(settings, sources);
            settings.engineBuilder().build(); // cross-field checks (load window > loader period, ranges, URL)
            return settings;
        } catch (InvalidSettingException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            throw new InvalidSettingException(e.getMessage());
        }
    }

    /** The public URL, or null for the default; checked here so that a refusal names the setting and its source. */
    private static String publicUrl(Map<Setting, String> values, Map<Setting, String> sources) {
        String url = values.get(Setting.PUBLIC_URL).trim();
        if (url.isEmpty()) {
            return null;
        }
        try {
            TickwheelServer.builder().callbackBaseUrl(url);
        } catch (IllegalArgumentException e) {
            throw new InvalidSettingException("public-url must be an absolute http or https URL without a query,"
                    + " got '" + url + "' (from " + sources.get(Setting.PUBLIC_URL) + ")");
        }
        return url;
    }

    /**
     * The keys of the secrets at rest; a refusal names the setting and its source, and never the value (a length).
     */
    private static SecretKeys secretKeys(Map<Setting, String> values, Map<Setting, String> sources) {
        List<String> previous = Arrays.stream(values.get(Setting.PREVIOUS_SECRET_KEYS).split(","))
                .map(String::strip).filter(key -> !key.isEmpty()).toList();
        try {
            return SecretKeys.parse(values.get(Setting.SECRET_KEY), Setting.SECRET_KEY.key(), previous,
                    Setting.PREVIOUS_SECRET_KEYS.key());
        } catch (IllegalArgumentException e) {
            Setting which = e.getMessage().startsWith(Setting.PREVIOUS_SECRET_KEYS.key())
                    ? Setting.PREVIOUS_SECRET_KEYS : Setting.SECRET_KEY;
            throw new InvalidSettingException(e.getMessage() + " (from " + sources.get(which) + ")");
        }
    }

    /** The outbound guard's mode and allow-list, each checked so that an error names its setting and source. */
    private static OutboundSettings outbound(Map<Setting, String> values, Map<Setting, String> sources) {
        OutboundSettings.Mode mode;
        try {
            mode = OutboundSettings.Mode.parse(values.get(Setting.OUTBOUND_GUARD));
        } catch (IllegalArgumentException e) {
            throw new InvalidSettingException(e.getMessage() + " (from " + sources.get(Setting.OUTBOUND_GUARD) + ")");
        }
        List<String> allowed = Arrays.stream(values.get(Setting.ALLOW_TARGETS).split(",")).map(String::strip)
                .filter(entry -> !entry.isEmpty()).toList();
        try {
            OutboundGuard.builder().allowAll(allowed); // checks every entry
        } catch (IllegalArgumentException e) {
            throw new InvalidSettingException("allow-targets: " + e.getMessage() + " (from "
                    + sources.get(Setting.ALLOW_TARGETS) + ")");
        }
        return new OutboundSettings(mode, allowed);
    }

    /** A server-wide alert URL the outbound guard refuses is a start error, in one line. */
    private static void checkAlertUrl(ServerSettings settings, Map<Setting, String> sources) {
        settings.outboundGuard().check(settings.alerts().url()).ifPresent(refusal -> {
            throw new InvalidSettingException("alert-url: " + refusal.message() + " (from "
                    + sources.get(Setting.ALERT_URL) + ")");
        });
    }

    /** The alert settings, each value checked by itself so that an error names its setting and source. */
    private static AlertSettings alerts(Map<Setting, String> values, Map<Setting, String> sources) {
        AlertSettings defaults = AlertSettings.DEFAULTS;
        AlertSettings url = alertSetting(sources, Setting.ALERT_URL,
                () -> defaults.withUrl(values.get(Setting.ALERT_URL)));
        AlertSettings secret = alertSetting(sources, Setting.ALERT_SECRET,
                () -> url.withSecret(values.get(Setting.ALERT_SECRET)));
        AlertSettings threshold = alertSetting(sources, Setting.ALERT_FAILURE_THRESHOLD, () ->
                secret.withFailureThreshold(clampedInt(number(values, sources, Setting.ALERT_FAILURE_THRESHOLD))));
        AlertSettings window = alertSetting(sources, Setting.ALERT_FAILURE_WINDOW_MS,
                () -> threshold.withFailureWindow(
                        Duration.ofMillis(number(values, sources, Setting.ALERT_FAILURE_WINDOW_MS))));
        return alertSetting(sources, Setting.ALERT_MIN_INTERVAL_MS, () ->
                window.withMinInterval(Duration.ofMillis(number(values, sources, Setting.ALERT_MIN_INTERVAL_MS))));
    }

    private static AlertSettings alertSetting(Map<Setting, String> sources, Setting setting,
                                              Supplier<AlertSettings> copy) {
        try {
            return copy.get();
        } catch (InvalidSettingException e) {
            throw e;
        } catch (IllegalArgumentException e) { // the message names the setting; add where the value came from
            throw new InvalidSettingException(e.getMessage() + " (from " + sources.get(setting) + ")");
        }
    }

    /** An out-of-range long stays out of range as an int, so the range check still refuses it. */
    private static int clampedInt(long value) {
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, value));
    }

    private static long number(Map<Setting, String> values, Map<Setting, String> sources, Setting setting) {
        String raw = values.get(setting).trim();
        try {
            return Long.parseLong(raw);
        } catch (NumberFormatException e) {
            throw new InvalidSettingException(setting.key() + " must be an integer, got '" + raw + "' (from "
                    + sources.get(setting) + ")");
        }
    }

    private static RetentionPurge.Settings retention(Map<Setting, String> values, Map<Setting, String> sources) {
        return new RetentionPurge.Settings(
                (int) inRange(values, sources, Setting.RETENTION_DAYS, 1, JobOperations.MAX_RETENTION_DAYS),
                (int) inRange(values, sources, Setting.RETENTION_BATCH_SIZE, 1,
                        RetentionPurge.Settings.MAX_BATCH_SIZE),
                Duration.ofMillis(inRange(values, sources, Setting.RETENTION_INTERVAL_MS, 1,
                        PeriodicTaskScheduler.MAX_DURATION.toMillis())),
                RetentionPurge.Settings.DEFAULT_MAX_BATCHES_PER_RUN);
    }

    private static long inRange(Map<Setting, String> values, Map<Setting, String> sources, Setting setting, long min,
            long max) {
        long value = number(values, sources, setting);
        if (value < min || value > max) {
            throw new InvalidSettingException(setting.key() + " must be in " + min + ".." + max + ", got " + value
                    + " (from " + sources.get(setting) + ")");
        }
        return value;
    }

    private static boolean bool(Map<Setting, String> values, Map<Setting, String> sources, Setting setting) {
        String raw = values.get(setting).trim();
        if (raw.equalsIgnoreCase("true") || raw.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(raw);
        }
        throw new InvalidSettingException(setting.key() + " must be true or false, got '" + raw + "' (from "
                + sources.get(setting) + ")");
    }

    private static Setting byFlag(String flag) {
        for (Setting setting : Setting.values()) {
            if (setting.flag().equals(flag)) {
                return setting;
            }
        }
        throw new InvalidSettingException("unknown argument: '" + flag + "' (see --help)");
    }

    private static Properties load(Path path) {
        Properties properties = new Properties();
        try (Reader in = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
            properties.load(in);
        } catch (IOException e) {
            throw new InvalidSettingException("config file '" + path + "' cannot be read: " + e);
        }
        return properties;
    }

    /**
     * The environment variable (or system property) that sets the root log level. {@code logback.xml} reads it, not
     * this class, because logging starts before any setting is read; {@code --help} lists it all the same.
     */
    public static final String LOG_LEVEL_ENV = "TICKWHEEL_LOG_LEVEL";

    /** {@code --help}: every setting with its flag, environment variable and default, the log level, how to stop. */
    public static String usage() {
        StringBuilder out = new StringBuilder(
                "usage: java -jar tickwheel-server.jar [--demo] [--flag value | --flag=value ...]\n"
                + "Each setting: flag, environment variable, properties key (in --config file); flags win over\n"
                + "environment variables, which win over the file.\n\n");
        for (Setting setting : Setting.values()) {
            appendRow(out, setting.flag(), setting.envVar(),
                    setting.defaultValue().isEmpty() ? "(none)" : setting.defaultValue(), setting.description());
        }
        appendRow(out, "(no flag)", LOG_LEVEL_ENV, "INFO", "root log level: TRACE, DEBUG, INFO, WARN or ERROR (read by"
                + " logback.xml; -D" + LOG_LEVEL_ENV + "=... works too); DEBUG adds a status line every 5 s");
        out.append("\nStop: Ctrl-C (SIGINT) or SIGTERM, both the same graceful stop: the HTTP API first, then the\n"
                + "loader and the wheels; calls in flight get up to "
                + TickwheelServer.DEFAULT_STOP_TIMEOUT.toSeconds() + " s to end; pending instances stay WAITING\n"
                + "in the store and are picked up on the next start.\n"
                + "Exit codes: 0 after a stop or --help, 2 for a bad setting (a secret key that does not match the\n"
                + "store's included), 3 when the store is held by another server (H2) or the pinned --node-id by a\n"
                + "live member.\n");
        return out.toString();
    }

    private static void appendRow(StringBuilder out, String flag, String envVar, String defaultValue,
            String description) {
        out.append(String.format("  %-26s %-34s default: %s%n      %s%n", flag, envVar, defaultValue, description));
    }
}
