package dev.tickwheel.server.dispatch.alert;

import dev.tickwheel.server.job.JobOperations;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * The server-wide alert settings: where alerts of jobs without their own {@code alertUrl} go, the secret they are
 * signed with, the failure threshold and the rate limit. Each {@code with*} copy validates its value; messages name
 * the value by its server setting ({@code alert-url}, ...).
 *
 * <p>Immutable. {@link #toString()} never shows the secret.
 *
 * @param url              where alerts of jobs without an {@code alertUrl} go (absolute http or https URL); null: they
 *                         get none
 * @param secret           signs the alerts sent to {@link #url} ({@value JobOperations#MIN_SECRET_LENGTH}..{@value
 *                         JobOperations#MAX_SECRET_LENGTH} characters, as a job's signing secret); null: unsigned
 * @param failureThreshold a job's FAILED instances within {@code failureWindow} that raise a
 *                         {@link AlertKind#FAILURE_THRESHOLD} alert, 1..{@value #MAX_FAILURE_THRESHOLD}
 * @param failureWindow    the sliding window the threshold counts over, 1 s..24 h
 * @param minInterval      at most one alert per job and kind this often, 0 (no limit)..24 h
 */
public record AlertSettings(String url, String secret, int failureThreshold, Duration failureWindow,
                            Duration minInterval) {

    public static final int DEFAULT_FAILURE_THRESHOLD = 5;
    public static final Duration DEFAULT_FAILURE_WINDOW = Duration.ofMinutes(10);
    public static final Duration DEFAULT_MIN_INTERVAL = Duration.ofMinutes(5);
    /** The most failures counted per job and window ({@link AlertRules} keeps one timestamp per failure). */
    public static final int MAX_FAILURE_THRESHOLD = 1000;

    private static final Duration MAX_DURATION = Duration.ofHours(24);

    /** No server-wide URL (only jobs with an {@code alertUrl} get alerts), the default threshold and limits. */
    public static final AlertSettings DEFAULTS = new AlertSettings(null, null, DEFAULT_FAILURE_THRESHOLD,
            DEFAULT_FAILURE_WINDOW, DEFAULT_MIN_INTERVAL);

    public AlertSettings {
        if (url != null && !isHttpUrl(url)) {
            throw new IllegalArgumentException("alert-url must be an absolute http or https URL of at most "
                    + JobOperations.MAX_ALERT_URL_LENGTH + " characters: '" + url + "'");
        }
        if (secret != null) {
            if (secret.length() < JobOperations.MIN_SECRET_LENGTH || secret.length() > JobOperations.MAX_SECRET_LENGTH
                    || secret.chars().anyMatch(Character::isISOControl)) {
                throw new IllegalArgumentException("alert-secret must be " + JobOperations.MIN_SECRET_LENGTH + ".."
                        + JobOperations.MAX_SECRET_LENGTH + " characters without control characters, got "
                        + secret.length() + " characters");
            }
        }
        if (failureThreshold < 1 || failureThreshold > MAX_FAILURE_THRESHOLD) {
            throw new IllegalArgumentException("alert-failure-threshold must be in 1.." + MAX_FAILURE_THRESHOLD + ": "
                    + failureThreshold);
        }
        Objects.requireNonNull(failureWindow, "alert-failure-window-ms");
        if (failureWindow.compareTo(Duration.ofSeconds(1)) < 0 || failureWindow.compareTo(MAX_DURATION) > 0) {
            throw new IllegalArgumentException("alert-failure-window-ms must be between 1000 ms and "
                    + MAX_DURATION.toMillis() + " ms: " + failureWindow.toMillis() + " ms");
        }
        Objects.requireNonNull(minInterval, "alert-min-interval-ms");
        if (minInterval.isNegative() || minInterval.compareTo(MAX_DURATION) > 0) {
            throw new IllegalArgumentException("alert-min-interval-ms must be between 0 ms and "
                    + MAX_DURATION.toMillis() + " ms: " + minInterval.toMillis() + " ms");
        }
    }

    /** A copy with another server-wide URL; null or blank: none. */
    public AlertSettings withUrl(String newUrl) {
        return new AlertSettings(blankToNull(newUrl), secret, failureThreshold, failureWindow, minInterval);
    }

    /** A copy with another secret for alerts to {@link #url}; null or blank: unsigned. */
    public AlertSettings withSecret(String newSecret) {
        return new AlertSettings(url, blankToNull(newSecret), failureThreshold, failureWindow, minInterval);
    }

    public AlertSettings withFailureThreshold(int newThreshold) {
        return new AlertSettings(url, secret, newThreshold, failureWindow, minInterval);
    }

    public AlertSettings withFailureWindow(Duration newWindow) {
        return new AlertSettings(url, secret, failureThreshold, newWindow, minInterval);
    }

    public AlertSettings withMinInterval(Duration newInterval) {
        return new AlertSettings(url, secret, failureThreshold, failureWindow, newInterval);
    }

    @Override
    public String toString() {
        return "alert-url=" + (url == null ? "none" : url) + " alert-secret=" + (secret == null ? "none" : "set")
                + " alert-failure-threshold=" + failureThreshold + " alert-failure-window-ms="
                + failureWindow.toMillis() + " alert-min-interval-ms=" + minInterval.toMillis();
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value.trim();
    }

    private static boolean isHttpUrl(String url) {
        if (url.length() > JobOperations.MAX_ALERT_URL_LENGTH) {
            return false;
        }
        try {
            URI uri = new URI(url);
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            return (scheme.equals("http") || scheme.equals("https")) && uri.getHost() != null;
        } catch (URISyntaxException e) {
            return false;
        }
    }
}
