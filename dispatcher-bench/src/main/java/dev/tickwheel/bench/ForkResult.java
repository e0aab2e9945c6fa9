package dev.tickwheel.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The metrics one peer produced, collected over its forks: for each metric, one value per fork.
 *
 * <p>Not thread-safe: filled by the parent harness, then read.
 */
public final class ForkResult {

    private final String peer;
    private final Map<String, List<Double>> values = new LinkedHashMap<>();
    private final Map<String, String> notes = new LinkedHashMap<>();

    public ForkResult(String peer) {
        this.peer = peer;
    }

    public String peer() {
        return peer;
    }

    /** Adds every numeric {@code key=value} pair of one fork; the rest become notes (last fork wins). */
    public void addFork(Map<String, String> result) {
        result.forEach((key, value) -> {
            try {
                values.computeIfAbsent(key, k -> new ArrayList<>()).add(Double.parseDouble(value));
            } catch (NumberFormatException e) {
                notes.put(key, value);
            }
        });
    }

    public boolean has(String metric) {
        return values.containsKey(metric);
    }

    public Summary summary(String metric) {
        List<Double> v = values.get(metric);
        if (v == null) {
            throw new IllegalArgumentException("no metric " + metric + " for " + peer + "; have " + values.keySet());
        }
        return Summary.of(v.stream().mapToDouble(Double::doubleValue).toArray());
    }

    public String note(String key) {
        return notes.get(key);
    }
}
