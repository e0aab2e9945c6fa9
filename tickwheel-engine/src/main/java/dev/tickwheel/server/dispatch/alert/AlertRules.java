package dev.tickwheel.server.dispatch.alert;

import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the alerter remembers: per job, the times of its latest FAILED instances (the failure threshold's sliding
 * window); per job and kind, when the last alert went out and how many were suppressed since.
 *
 * <p><b>Sliding window.</b> A failure at {@code t} counts at {@code now} while {@code now - window < t <= now}. With a
 * threshold of 3 and a window of 10 minutes:
 * <pre>
 *  failure at  counted in             count   threshold alert
 *  00:00       (23:50, 00:00]           1
 *  00:04       (23:54, 00:04]           2
 *  00:09       (23:59, 00:09]           3       yes (3 &gt;= 3)
 *  00:12       (00:02, 00:12]           3       yes (00:00 left the window), unless rate-limited
 *  00:25       (00:15, 00:25]           1
 * </pre>
 *
 * <p><b>Rate limit.</b> An alert of (job, kind) at {@code t} may go out if the last one that went out was at or before
 * {@code t - minInterval}; otherwise it is suppressed and counted, and the next one that goes out carries the count
 * and resets it.
 *
 * <p>Memory: at most {@value AlertSettings#MAX_FAILURE_THRESHOLD} failure times per job (the oldest go first, so a
 * count stops there: it then means "at least"), and at most {@value #MAX_TRACKED} jobs in each map, least recently
 * touched out. Entries whose window or interval has passed are pruned as new events arrive.
 *
 * <p>Not thread-safe: confined to the alert thread.
 */
final class AlertRules {

    /** Jobs (and job-kind pairs) remembered at most; beyond, the least recently touched is forgotten. */
    static final int MAX_TRACKED = 100_000;
    /** Stale entries removed per event, at most: pruning stays O(1) per event. */
    private static final int PRUNE_PER_EVENT = 4;

    private final long windowMs;
    private final Duration minInterval;
    private final LinkedHashMap<Long, FailureTimes> failures = lruMap();
    private final LinkedHashMap<RateKey, RateState> rates = lruMap();

    AlertRules(Duration window, Duration minInterval) {
        this.windowMs = window.toMillis();
        this.minInterval = minInterval;
    }

    /** Records a FAILED instance of {@code jobId} at {@code at}; returns the failures in the window ending then. */
    int failed(long jobId, Instant at) {
        long atMs = at.toEpochMilli();
        long windowStartMs = atMs - windowMs; // exclusive
        pruneStale(failures, (times) -> times.latestMs() <= windowStartMs);
        return failures.computeIfAbsent(jobId, id -> new FailureTimes()).add(atMs, windowStartMs);
    }

    /** The (exclusive) start of the window ending at {@code at}. */
    Instant windowStart(Instant at) {
        return at.minusMillis(windowMs);
    }

    /**
     * Decides whether an alert of (job, kind) at {@code at} goes out.
     *
     * @return the number of alerts of this job and kind suppressed since the last one that went out (0 or more) if
     *         this one goes out; -1 if it is suppressed (and counted)
     */
    int admit(long jobId, AlertKind kind, Instant at) {
        Instant lastAllowed = at.minus(minInterval);
        pruneStale(rates, (state) -> state.suppressed == 0 && !state.lastSent.isAfter(lastAllowed));
        RateState state = rates.get(new RateKey(jobId, kind));
        if (state == null) {
            rates.put(new RateKey(jobId, kind), new RateState(at));
            return 0;
        }
        if (state.lastSent.isAfter(lastAllowed)) {
            state.suppressed++;
            return -1;
        }
        int suppressed = state.suppressed;
        state.lastSent = at;
        state.suppressed = 0;
        return suppressed;
    }

    private interface Staleness<V> {
        boolean stale(V value);
    }

    /** Removes stale entries from the least recently touched end, a few at a time. */
    private static <K, V> void pruneStale(LinkedHashMap<K, V> map, Staleness<V> staleness) {
        Iterator<V> eldestFirst = map.values().iterator();
        for (int i = 0; i < PRUNE_PER_EVENT && eldestFirst.hasNext(); i++) {
            if (!staleness.stale(eldestFirst.next())) {
                return;
            }
            eldestFirst.remove();
        }
    }

    private static <K, V> LinkedHashMap<K, V> lruMap() {
        return new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
                return size() > MAX_TRACKED;
            }
        };
    }

    private record RateKey(long jobId, AlertKind kind) {
    }

    /** When the last alert of a job and kind went out, and how many were suppressed since. */
    private static final class RateState {
        Instant lastSent;
        int suppressed;

        RateState(Instant lastSent) {
            this.lastSent = lastSent;
        }
    }

    /** A ring of failure times in epoch ms, oldest first; grows up to {@link AlertSettings#MAX_FAILURE_THRESHOLD}. */
    private static final class FailureTimes {
        private long[] times = new long[4];
        private int head;
        private int size;

        /** Drops the times at or before {@code windowStartMs}, adds {@code atMs}; returns how many remain. */
        int add(long atMs, long windowStartMs) {
            while (size > 0 && times[head] <= windowStartMs) {
                head = (head + 1) % times.length;
                size--;
            }
            if (size == times.length) {
                if (times.length < AlertSettings.MAX_FAILURE_THRESHOLD) {
                    grow();
                } else {
                    head = (head + 1) % times.length; // full: forget the oldest
                    size--;
                }
            }
            times[(head + size) % times.length] = atMs;
            size++;
            return size;
        }

        long latestMs() {
            return size == 0 ? Long.MIN_VALUE : times[(head + size - 1) % times.length];
        }

        private void grow() {
            long[] bigger = new long[Math.min(times.length * 2, AlertSettings.MAX_FAILURE_THRESHOLD)];
            for (int i = 0; i < size; i++) {
                bigger[i] = times[(head + i) % times.length];
            }
            times = bigger;
            head = 0;
        }
    }
}
