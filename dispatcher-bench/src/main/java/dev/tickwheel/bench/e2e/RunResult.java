package dev.tickwheel.bench.e2e;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one end-to-end run measured, all from the store rows except the handler's duplicate count. A child JVM prints
 * it as one {@code RESULT key=value ...} line; the parent parses it back.
 *
 * <p>Immutable.
 *
 * @param instances       instances created and recorded SUCCEEDED
 * @param createPerSec    instances created by the loader per second: count / (last created_at − server start)
 * @param dispatchPerSec  count / (last SUCCEEDED updated_at − first actual trigger time)
 * @param endToEndPerSec  count / (last SUCCEEDED updated_at − server start)
 * @param latenessP50Ms   actual minus scheduled trigger time, 50th percentile
 * @param latenessP99Ms   99th percentile
 * @param latenessP999Ms  99.9th percentile
 * @param latenessMaxMs   maximum
 * @param duplicates      handler calls beyond the first for any instance; must be 0
 * @param notSucceeded    instances not SUCCEEDED or with attempt != 1 at the end; must be 0
 */
public record RunResult(long instances, double createPerSec, double dispatchPerSec, double endToEndPerSec,
                        long latenessP50Ms, long latenessP99Ms, long latenessP999Ms, long latenessMaxMs,
                        long duplicates, long notSucceeded) {

    static final String PREFIX = "RESULT ";

    public String toLine() {
        return PREFIX + "instances=" + instances + " createPerSec=" + Math.round(createPerSec)
                + " dispatchPerSec=" + Math.round(dispatchPerSec) + " endToEndPerSec=" + Math.round(endToEndPerSec)
                + " p50=" + latenessP50Ms + " p99=" + latenessP99Ms + " p999=" + latenessP999Ms
                + " max=" + latenessMaxMs + " duplicates=" + duplicates + " notSucceeded=" + notSucceeded;
    }

    public static boolean isResultLine(String line) {
        return line.startsWith(PREFIX);
    }

    public static RunResult parse(String line) {
        Map<String, String> values = new LinkedHashMap<>();
        for (String pair : line.substring(PREFIX.length()).trim().split("\\s+")) {
            int eq = pair.indexOf('=');
            values.put(pair.substring(0, eq), pair.substring(eq + 1));
        }
        return of(values);
    }

    /** The result whose {@link #toLine()} gave these {@code key=value} pairs. */
    public static RunResult of(Map<String, String> values) {
        return new RunResult(Long.parseLong(values.get("instances")), Double.parseDouble(values.get("createPerSec")),
                Double.parseDouble(values.get("dispatchPerSec")), Double.parseDouble(values.get("endToEndPerSec")),
                Long.parseLong(values.get("p50")), Long.parseLong(values.get("p99")),
                Long.parseLong(values.get("p999")), Long.parseLong(values.get("max")),
                Long.parseLong(values.get("duplicates")), Long.parseLong(values.get("notSucceeded")));
    }
}
