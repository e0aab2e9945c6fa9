package dev.tickwheel.bench.api;

import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What one phase (one figure in one round) measured: the successes and their items within the measured window, the
 * errors by kind, and the latency of the successful requests.
 *
 * <p>Immutable.
 *
 * @param figure        what was measured
 * @param round         1-based
 * @param windowNanos   the measured window: from the end of the warm-up to the end of the phase, or to the last
 *                      answer if the supply ran out first
 * @param calls         successful requests that ended within the window
 * @param items         their items (calls, runs created, ids cancelled, rows)
 * @param errors        failed requests that ended within the window, by kind ({@code 404}, {@code SQLSTATE 42703},
 *                      {@code SocketTimeoutException})
 * @param errorExamples the first answer body or message of each kind of error (of the whole phase, warm-up included)
 * @param p50Us         latency of the successful requests in the window, nearest rank, microseconds
 * @param p99Us         likewise
 * @param maxUs         likewise
 * @param cpu           the CPU the server, the client and the machine used in the window; null if the phase stopped
 *                      after its warm-up
 * @param note          why the window is short or missing (the supply ran out, nothing succeeded); null if it is not
 */
record PhaseResult(Figure figure, int round, long windowNanos, long calls, long items, Map<String, Long> errors,
                   Map<String, String> errorExamples, long p50Us, long p99Us, long maxUs, CpuSample.CpuUse cpu,
                   String note) {

    PhaseResult {
        errors = Map.copyOf(errors);
        errorExamples = Map.copyOf(errorExamples);
    }

    /** A rate was measured: a window with at least one success. */
    boolean valid() {
        return windowNanos > 0 && calls > 0;
    }

    /** Items per second over the window; 0 if not {@link #valid}. */
    double itemsPerSecond() {
        return valid() ? items * 1e9 / windowNanos : 0;
    }

    long errorCount() {
        return errors.values().stream().mapToLong(Long::longValue).sum();
    }

    /** The errors as {@code 404 × 12, 409 × 3}, or {@code 0}. */
    String errorText() {
        if (errors.isEmpty()) {
            return "0";
        }
        return errors.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .map(e -> e.getKey() + " × " + e.getValue()).collect(Collectors.joining(", "));
    }

    /** One line for the console. */
    String line() {
        StringBuilder s = new StringBuilder();
        s.append(String.format("round %d %-19s", round, figure.name().toLowerCase(Locale.ROOT)));
        if (valid()) {
            s.append(String.format(" %,10.0f %-9s over %5.2f s, %,d calls", itemsPerSecond(), figure.unit(),
                    windowNanos / 1e9, calls));
            s.append(String.format(", latency p50 %,d µs, p99 %,d µs, max %,d µs", p50Us, p99Us, maxUs));
        } else {
            s.append(" no rate");
        }
        if (cpu != null && valid()) {
            s.append(", ").append(cpu.text());
        }
        s.append(", errors ").append(errorText());
        if (note != null) {
            s.append(" (").append(note).append(')');
        }
        errorExamples.forEach((kind, example) -> s.append("\n    first ").append(kind).append(": ").append(example));
        return s.toString();
    }
}
