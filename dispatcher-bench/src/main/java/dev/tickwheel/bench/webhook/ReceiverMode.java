package dev.tickwheel.bench.webhook;

import java.util.Locale;

/**
 * How a {@link LoadReceiver} answers: at once, after a latency, or never (two ways).
 *
 * <p>Immutable.
 *
 * @param kind      the behaviour
 * @param latencyMs for {@link Kind#LATENCY}: how long each answer waits, in ms (at least 1); 0 otherwise
 */
public record ReceiverMode(Kind kind, long latencyMs) {

    /** The behaviours. */
    public enum Kind {
        /** {@code 200} at once, on the thread that read the request. */
        FAST,
        /** {@code 200} after {@code latencyMs}; no thread waits meanwhile. */
        LATENCY,
        /**
         * {@code 200} headers with {@code Content-Length: 1024} and the first 100 bytes of the body, then nothing:
         * a client whose deadline does not cover the body waits forever.
         */
        STALL,
        /** Reads the request and never answers, not even headers. */
        STALL_HEADERS
    }

    public ReceiverMode {
        if (kind == null) {
            throw new IllegalArgumentException("kind must not be null");
        }
        if (kind == Kind.LATENCY ? latencyMs < 1 : latencyMs != 0) {
            throw new IllegalArgumentException("latencyMs must be at least 1 for LATENCY and 0 otherwise: " + kind
                    + " " + latencyMs);
        }
    }

    public static ReceiverMode fast() {
        return new ReceiverMode(Kind.FAST, 0);
    }

    /** Answers after {@code latencyMs}; 0 means {@link #fast()}. */
    public static ReceiverMode latency(long latencyMs) {
        return latencyMs == 0 ? fast() : new ReceiverMode(Kind.LATENCY, latencyMs);
    }

    public static ReceiverMode stall() {
        return new ReceiverMode(Kind.STALL, 0);
    }

    public static ReceiverMode stallHeaders() {
        return new ReceiverMode(Kind.STALL_HEADERS, 0);
    }

    /**
     * Parses {@code fast}, {@code latency <ms>} (or {@code latency:<ms>}), {@code stall} or {@code stall-headers}.
     *
     * @throws IllegalArgumentException naming the text if it is none of these
     */
    public static ReceiverMode parse(String text) {
        String[] words = text.trim().toLowerCase(Locale.ROOT).split("[\\s:=]+");
        try {
            return switch (words[0]) {
                case "fast" -> only(words, fast());
                case "stall" -> only(words, stall());
                case "stall-headers" -> only(words, stallHeaders());
                case "latency" -> {
                    if (words.length != 2) {
                        throw new IllegalArgumentException("latency needs milliseconds");
                    }
                    yield latency(Long.parseLong(words[1]));
                }
                default -> throw new IllegalArgumentException("unknown mode");
            };
        } catch (IllegalArgumentException e) { // NumberFormatException too
            throw new IllegalArgumentException("receiver mode must be fast, latency <ms>, stall or stall-headers: '"
                    + text + "' (" + e.getMessage() + ")", e);
        }
    }

    private static ReceiverMode only(String[] words, ReceiverMode mode) {
        if (words.length != 1) {
            throw new IllegalArgumentException("takes no value");
        }
        return mode;
    }

    /** The form {@link #parse} reads back, e.g. {@code latency:1000} (no spaces: it goes on command lines). */
    @Override
    public String toString() {
        return switch (kind) {
            case FAST -> "fast";
            case LATENCY -> "latency:" + latencyMs;
            case STALL -> "stall";
            case STALL_HEADERS -> "stall-headers";
        };
    }
}
