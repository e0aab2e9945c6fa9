package dev.tickwheel.bench.e2e;

import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * Formats the summary of several runs: the median of each measure, with min–max.
 *
 * <p>Stateless; thread-safe.
 */
public final class EndToEndReport {

    private EndToEndReport() {
    }

    public static String header(int instances, long leadMs, long spreadMs) {
        return String.format("%,d one-shot instances, due evenly over [start + %d ms, start + %d ms); median (min-max)%n"
                        + "%-4s %-22s %-22s %-22s %-16s %-16s %-16s %-16s %-5s %-5s",
                instances, leadMs - spreadMs, leadMs, "db", "create/s", "dispatch/s", "end-to-end/s",
                "late p50 ms", "late p99 ms", "late p99.9 ms", "late max ms", "dup", "bad");
    }

    public static String summarize(String db, List<RunResult> runs) {
        return String.format("%-4s %-22s %-22s %-22s %-16s %-16s %-16s %-16s %-5s %-5s", db,
                stat(runs, RunResult::createPerSec), stat(runs, RunResult::dispatchPerSec),
                stat(runs, RunResult::endToEndPerSec), stat(runs, RunResult::latenessP50Ms),
                stat(runs, RunResult::latenessP99Ms), stat(runs, RunResult::latenessP999Ms),
                stat(runs, RunResult::latenessMaxMs),
                (long) runs.stream().mapToLong(RunResult::duplicates).sum(),
                (long) runs.stream().mapToLong(RunResult::notSucceeded).sum());
    }

    private static String stat(List<RunResult> runs, ToDoubleFunction<RunResult> measure) {
        return medianMinMax(runs.stream().mapToDouble(measure).toArray());
    }

    /** {@code median (min-max)} of some runs' values, rounded to whole numbers. */
    public static String medianMinMax(double[] runValues) {
        double[] values = runValues.clone();
        java.util.Arrays.sort(values);
        double median = values.length % 2 == 1 ? values[values.length / 2]
                : (values[values.length / 2 - 1] + values[values.length / 2]) / 2;
        return String.format("%,.0f (%,.0f-%,.0f)", median, values[0], values[values.length - 1]);
    }

}
