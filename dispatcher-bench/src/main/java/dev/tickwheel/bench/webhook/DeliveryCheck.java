package dev.tickwheel.bench.webhook;

import dev.tickwheel.server.instance.Instance;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Matches what the receivers saw against what the store says: every instance row's current key
 * ({@code <id>-<attempt>}) must have been delivered exactly once, and no delivery may name a key that no row has
 * had.
 *
 * <ul>
 *   <li><b>lost</b>: expected instances whose current key no receiver saw, missing rows included;
 *   <li><b>duplicate keys</b>: deliveries beyond the first of any key;
 *   <li><b>stray</b>: deliveries of a key no row has had (unknown id, or an attempt beyond the row's).
 * </ul>
 *
 * <p>Immutable after construction.
 */
public final class DeliveryCheck {

    /** A delivery key. */
    private record Key(long instanceId, int attempt) {
    }

    /** The first delivery of a key, and how many there were. Mutable during construction only. */
    private static final class Seen {
        long firstArrivalMs;
        int receiver;
        int count;
    }

    private final Map<Key, Seen> seen = new HashMap<>();
    private final long deliveries;
    private final long duplicateKeys;
    private final long stray;
    private final long lost;

    /**
     * @param rows     every instance row of the run
     * @param expected instances the run created
     * @param logs     each receiver's log, in the scenario's receiver order
     */
    public DeliveryCheck(List<Instance> rows, int expected, List<DeliveryLog> logs) {
        Map<Long, Integer> attempts = new HashMap<>(rows.size() * 2);
        rows.forEach(row -> attempts.put(row.id(), row.attempt()));
        long total = 0;
        long strayCount = 0;
        for (int r = 0; r < logs.size(); r++) {
            int receiver = r;
            long[] counts = new long[2]; // deliveries, stray
            logs.get(r).forEach((instanceId, attempt, arrivalMs) -> {
                counts[0]++;
                Integer rowAttempt = attempts.get(instanceId);
                if (rowAttempt == null || attempt > rowAttempt) {
                    counts[1]++;
                    return;
                }
                Seen s = seen.computeIfAbsent(new Key(instanceId, attempt), k -> new Seen());
                if (s.count++ == 0 || arrivalMs < s.firstArrivalMs) {
                    s.firstArrivalMs = arrivalMs;
                    s.receiver = receiver;
                }
            });
            total += counts[0];
            strayCount += counts[1];
        }
        long missing = Math.max(0, expected - rows.size());
        long undelivered = rows.stream().filter(row -> !seen.containsKey(new Key(row.id(), row.attempt()))).count();
        this.deliveries = total;
        this.stray = strayCount;
        this.duplicateKeys = total - strayCount - seen.size();
        this.lost = missing + undelivered;
    }

    /** Requests the receivers recorded. */
    public long deliveries() {
        return deliveries;
    }

    public long duplicateKeys() {
        return duplicateKeys;
    }

    public long stray() {
        return stray;
    }

    public long lost() {
        return lost;
    }

    /** When the row's current key first arrived (epoch ms), or -1 if it never did. */
    public long firstArrivalMs(Instance row) {
        Seen s = seen.get(new Key(row.id(), row.attempt()));
        return s == null ? -1 : s.firstArrivalMs;
    }

    /** Which receiver (index in the scenario's order) first got the row's current key, or -1 if none did. */
    public int receiverOf(Instance row) {
        Seen s = seen.get(new Key(row.id(), row.attempt()));
        return s == null ? -1 : s.receiver;
    }
}
