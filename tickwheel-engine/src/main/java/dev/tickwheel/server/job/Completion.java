package dev.tickwheel.server.job;

import java.util.Objects;

/**
 * When an attempt of a webhook job is over: when its call answers 2xx ({@link Mode#IMMEDIATE}), or when the target
 * reports its outcome later to the call's callback URL ({@link Mode#CALLBACK}).
 *
 * <p>Immutable.
 *
 * @param mode              immediate or callback
 * @param callbackTimeoutMs for {@link Mode#CALLBACK}: how long after the call's answer (or its last heartbeat) the
 *                          target may report, in milliseconds, before the attempt fails as timed out; 0 for
 *                          {@link Mode#IMMEDIATE}
 */
public record Completion(Mode mode, long callbackTimeoutMs) {

    /** The shortest callback time-out: a second. */
    public static final long MIN_CALLBACK_TIMEOUT_MS = 1_000L;
    /** The longest callback time-out: seven days. */
    public static final long MAX_CALLBACK_TIMEOUT_MS = 7L * 24 * 3_600_000L;
    /** The callback time-out of a job that sets none: one hour. */
    public static final long DEFAULT_CALLBACK_TIMEOUT_MS = 3_600_000L;

    /** An attempt is over when its call is: the default. */
    public static final Completion IMMEDIATE = new Completion(Mode.IMMEDIATE, 0);

    /** How an attempt ends. */
    public enum Mode {
        /** A 2xx answer is success; anything else fails the attempt. */
        IMMEDIATE,
        /**
         * A 2xx answer (202 by convention) only accepts the work: the instance stays DISPATCHING until the target
         * POSTs its outcome to the {@code Tickwheel-Callback-Url} of the call, or the callback time-out passes.
         */
        CALLBACK
    }

    public Completion {
        Objects.requireNonNull(mode, "mode");
        if (mode == Mode.IMMEDIATE && callbackTimeoutMs != 0) {
            throw new IllegalArgumentException("callbackTimeoutMs applies only to CALLBACK completion: "
                    + callbackTimeoutMs);
        }
        if (mode == Mode.CALLBACK && (callbackTimeoutMs < MIN_CALLBACK_TIMEOUT_MS
                || callbackTimeoutMs > MAX_CALLBACK_TIMEOUT_MS)) {
            throw new IllegalArgumentException("callbackTimeoutMs must be in " + MIN_CALLBACK_TIMEOUT_MS + ".."
                    + MAX_CALLBACK_TIMEOUT_MS + ": " + callbackTimeoutMs);
        }
    }

    /** Callback completion with the given time-out. */
    public static Completion callback(long callbackTimeoutMs) {
        return new Completion(Mode.CALLBACK, callbackTimeoutMs);
    }

    /** True for {@link Mode#CALLBACK}. */
    public boolean byCallback() {
        return mode == Mode.CALLBACK;
    }
}
