package dev.tickwheel.bench.webhook;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What one run of a webhook scenario measured, and which of its invariants it broke (none, when it passed).
 *
 * <p>Immutable.
 *
 * @param scenario   the scenario
 * @param numbers    measures by name, in report order
 * @param texts      other facts by name (no spaces), in report order
 * @param violations the invariants broken, each said in a sentence; empty when the run passed
 */
public record ScenarioResult(WebhookScenario scenario, Map<String, Double> numbers, Map<String, String> texts,
                             List<String> violations) {

    public ScenarioResult {
        numbers = Collections.unmodifiableMap(new LinkedHashMap<>(numbers));
        texts = Collections.unmodifiableMap(new LinkedHashMap<>(texts));
        violations = List.copyOf(violations);
    }

    public boolean passed() {
        return violations.isEmpty();
    }

    public double number(String name) {
        Double value = numbers.get(name);
        if (value == null) {
            throw new IllegalArgumentException(scenario.id() + " has no measure " + name + ": " + numbers.keySet());
        }
        return value;
    }

    /** One line: {@code fast: dispatchPerSec=12345 ... | ok} or {@code ... | FAILED: lost 3 of ...}. */
    public String toLine() {
        StringBuilder line = new StringBuilder(scenario.id()).append(':');
        numbers.forEach((k, v) -> line.append(' ').append(k).append('=').append(format(v)));
        texts.forEach((k, v) -> line.append(' ').append(k).append('=').append(v));
        line.append(" | ").append(passed() ? "ok" : "FAILED: " + String.join("; ", violations));
        return line.toString();
    }

    /** Median (min-max) of each measure over several runs of one scenario, one {@code name: value} per line. */
    public static String summarize(List<ScenarioResult> runs) {
        if (runs.isEmpty()) {
            throw new IllegalArgumentException("no runs to summarize");
        }
        StringBuilder out = new StringBuilder();
        for (String name : runs.get(0).numbers().keySet()) {
            double[] values = runs.stream().mapToDouble(r -> r.numbers().getOrDefault(name, Double.NaN)).toArray();
            out.append(String.format(Locale.ROOT, "  %-22s %s%n", name, medianAndRange(values)));
        }
        for (String name : runs.get(0).texts().keySet()) {
            List<String> values = new ArrayList<>();
            runs.forEach(r -> values.add(r.texts().get(name)));
            out.append(String.format(Locale.ROOT, "  %-22s %s%n", name, String.join(" / ", values)));
        }
        return out.toString();
    }

    /** {@code median (min-max)} of the values, e.g. {@code 12,345 (11,002-13,010)}. */
    public static String medianAndRange(double... values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        return n == 1 ? format(median)
                : format(median) + " (" + format(sorted[0]) + "-" + format(sorted[n - 1]) + ")";
    }

    private static String format(double value) {
        if (Double.isNaN(value)) {
            return "n/a";
        }
        if (Math.abs(value) >= 100 || value == Math.rint(value)) {
            return String.format(Locale.ROOT, "%,.0f", value);
        }
        return String.format(Locale.ROOT, "%.2f", value);
    }

    /** Collects a result. Not thread-safe. */
    static final class Builder {
        private final WebhookScenario scenario;
        private final Map<String, Double> numbers = new LinkedHashMap<>();
        private final Map<String, String> texts = new LinkedHashMap<>();
        private final List<String> violations = new ArrayList<>();

        Builder(WebhookScenario scenario) {
            this.scenario = scenario;
        }

        Builder number(String name, double value) {
            numbers.put(name, value);
            return this;
        }

        Builder text(String name, String value) {
            texts.put(name, value.replace(' ', '_'));
            return this;
        }

        /** Records {@code violation} unless {@code holds}. */
        Builder require(boolean holds, String violation) {
            if (!holds) {
                violations.add(violation);
            }
            return this;
        }

        ScenarioResult build() {
            return new ScenarioResult(scenario, numbers, texts, violations);
        }
    }
}
