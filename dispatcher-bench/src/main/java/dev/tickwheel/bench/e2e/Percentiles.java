package dev.tickwheel.bench.e2e;

import java.util.Arrays;

/**
 * Nearest-rank percentiles of a set of millisecond samples.
 *
 * <p>Immutable after construction (the samples are copied and sorted once).
 */
public final class Percentiles {

    private final long[] sortedMs;

    public Percentiles(long[] samplesMs) {
        if (samplesMs.length == 0) {
            throw new IllegalArgumentException("no samples");
        }
        this.sortedMs = samplesMs.clone();
        Arrays.sort(sortedMs);
    }

    /** The nearest-rank percentile, {@code p} in (0, 100]. */
    public long at(double p) {
        if (!(p > 0 && p <= 100)) {
            throw new IllegalArgumentException("percentile must be in (0, 100]: " + p);
        }
        int rank = (int) Math.ceil(p / 100.0 * sortedMs.length);
        return sortedMs[Math.max(0, rank - 1)];
    }

    public long max() {
        return sortedMs[sortedMs.length - 1];
    }
}
