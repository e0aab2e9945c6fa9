package dev.tickwheel.server.metrics;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code job} tag value of a job id, with bounded cardinality: the first {@code limit} job ids seen get their
 * own value (the id in decimal), every later one shares {@value #OTHER}. A Prometheus series per job is fine for a
 * few dozen jobs and a disaster for a million one-shot jobs; the bound keeps the worst case at {@code limit + 1}
 * series per meter and tag combination.
 *
 * <p>Thread-safe: a seen id is one lock-free read; admitting a new id is guarded by this object, so the limit holds
 * exactly.
 *
 * <p>Caveats: the ids that get their own value are the first seen since start, not the busiest; a job deleted keeps
 * its slot until the server restarts.
 */
final class JobLabels {

    static final String OTHER = "other";
    static final int DEFAULT_LIMIT = 100;

    private final int limit;
    private final Map<Long, String> labels = new ConcurrentHashMap<>();

    JobLabels(int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("limit must not be negative: " + limit);
        }
        this.limit = limit;
    }

    String of(long jobId) {
        String label = labels.get(jobId);
        if (label != null) {
            return label;
        }
        synchronized (this) {
            if (labels.size() >= limit) {
                return labels.getOrDefault(jobId, OTHER);
            }
            return labels.computeIfAbsent(jobId, id -> Long.toString(id));
        }
    }
}
