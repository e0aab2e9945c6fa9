package dev.tickwheel.bench;

import java.util.Arrays;
import java.util.Locale;

/**
 * Median and range of one metric over JVM forks.
 *
 * <p>Immutable.
 */
public record Summary(double median, double min, double max, int forks) {

    public static Summary of(double... values) {
        if (values.length == 0) {
            throw new IllegalArgumentException("no values");
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        return new Summary(median, sorted[0], sorted[n - 1], n);
    }

    /** The same summary with every value multiplied by {@code factor}. */
    public Summary scaled(double factor) {
        return new Summary(median * factor, min * factor, max * factor, forks);
    }

    /** {@code median (min–max)} with the given number format, e.g. {@code "%.2f"}. */
    public String format(String numberFormat) {
        String m = String.format(Locale.ROOT, numberFormat, median);
        if (forks == 1 || min == max) {
            return m;
        }
        return m + " (" + String.format(Locale.ROOT, numberFormat, min) + "–"
                + String.format(Locale.ROOT, numberFormat, max) + ")";
    }

    /** Percentile {@code p} (0..100) of sorted values, nearest rank. */
    public static double percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }
}
