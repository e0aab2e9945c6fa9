package dev.tickwheel.server.job;

/**
 * How a job is operated, apart from how it is delivered: how long its finished instances are kept, where its failure
 * alerts go, and the secret its webhook calls are signed with.
 *
 * <p>Every field is optional: null means the server's setting applies (retention, alert webhook) or that calls are not
 * signed.
 *
 * <p>Immutable. {@link #toString()} never shows the secret.
 *
 * @param retentionDays days a finished instance of this job is kept before the purge deletes it, in
 *                      1..{@value #MAX_RETENTION_DAYS}; null for the server's {@code retention-days}
 * @param alertUrl      the http(s) URL that gets this job's failure alerts; null for the server's {@code alert-url}
 * @param signingSecret the HMAC-SHA256 key of this job's webhook calls, {@value #MIN_SECRET_LENGTH}..{@value
 *                      #MAX_SECRET_LENGTH} characters; null when calls are not signed
 */
public record JobOperations(Integer retentionDays, String alertUrl, String signingSecret) {

    /** Longest retention a job may ask for: ten years. */
    public static final int MAX_RETENTION_DAYS = 3650;
    /** Longest alert URL: the store's column width. */
    public static final int MAX_ALERT_URL_LENGTH = 2048;
    /** Shortest signing secret: 16 characters, so a secret cannot be guessed by trying. */
    public static final int MIN_SECRET_LENGTH = 16;
    /** Longest signing secret; its encrypted form (up to 1 075 characters) fits the store's column (2 048). */
    public static final int MAX_SECRET_LENGTH = 256;

    /** The server's retention and alert webhook, unsigned calls. */
    public static final JobOperations DEFAULT = new JobOperations(null, null, null);

    public JobOperations {
        if (retentionDays != null && (retentionDays < 1 || retentionDays > MAX_RETENTION_DAYS)) {
            throw new IllegalArgumentException("retentionDays must be in 1.." + MAX_RETENTION_DAYS + ": "
                    + retentionDays);
        }
        if (alertUrl != null && (alertUrl.isBlank() || alertUrl.length() > MAX_ALERT_URL_LENGTH
                || alertUrl.indexOf('\0') >= 0)) {
            throw new IllegalArgumentException("alertUrl must be 1.." + MAX_ALERT_URL_LENGTH
                    + " characters without NUL: '" + alertUrl + "'");
        }
        if (signingSecret != null) {
            if (signingSecret.length() < MIN_SECRET_LENGTH || signingSecret.length() > MAX_SECRET_LENGTH) {
                throw new IllegalArgumentException("signingSecret must be " + MIN_SECRET_LENGTH + ".."
                        + MAX_SECRET_LENGTH + " characters, got " + signingSecret.length());
            }
            if (signingSecret.chars().anyMatch(Character::isISOControl)) {
                throw new IllegalArgumentException("signingSecret must not contain control characters");
            }
        }
    }

    /** A copy with another signing secret (null: unsigned). */
    public JobOperations withSigningSecret(String newSecret) {
        return new JobOperations(retentionDays, alertUrl, newSecret);
    }

    /** True when this job's webhook calls are signed. */
    public boolean signed() {
        return signingSecret != null;
    }

    @Override
    public String toString() {
        return "JobOperations[retentionDays=" + retentionDays + ", alertUrl=" + alertUrl + ", signingSecret="
                + (signingSecret == null ? "none" : "***") + "]";
    }
}
