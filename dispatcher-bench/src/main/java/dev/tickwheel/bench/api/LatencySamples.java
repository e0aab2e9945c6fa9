package dev.tickwheel.bench.api;

import java.util.Arrays;

/**
 * Latencies of one phase, in microseconds: appended by one worker, then merged and sorted once for nearest-rank
 * percentiles.
 *
 * <p>Not thread-safe: confined to its worker while the phase runs, then to the thread that merges.
 */
final class LatencySamples {

    private long[] latencyUs = new long[1 << 12];
    private int size;
    private boolean sorted;

    void add(long us) {
        if (size == latencyUs.length) {
            latencyUs = Arrays.copyOf(latencyUs, size * 2);
        }
        latencyUs[size++] = us;
        sorted = false;
    }

    /** One set holding the samples of every one of {@code parts}. */
    static LatencySamples merge(Iterable<LatencySamples> parts) {
        LatencySamples all = new LatencySamples();
        for (LatencySamples p : parts) {
            if (all.size + p.size > all.latencyUs.length) {
                all.latencyUs = Arrays.copyOf(all.latencyUs, Math.max(all.latencyUs.length * 2, all.size + p.size));
            }
            System.arraycopy(p.latencyUs, 0, all.latencyUs, all.size, p.size);
            all.size += p.size;
        }
        return all;
    }

    int count() {
        return size;
    }

    /** The nearest-rank percentile in microseconds, {@code p} in (0, 100]; 0 without samples. */
    long percentileUs(double p) {
        if (!(p > 0 && p <= 100)) {
            throw new IllegalArgumentException("percentile must be in (0, 100]: " + p);
        }
        if (size == 0) {
            return 0;
        }
        if (!sorted) {
            Arrays.sort(latencyUs, 0, size);
            sorted = true;
        }
        int rank = (int) Math.ceil(p / 100.0 * size);
        return latencyUs[Math.max(0, rank - 1)];
    }
}
