package dev.tickwheel.id;

import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Issues unique, increasing 64-bit IDs without coordination between servers, each with its own node id.
 *
 * <pre>
 *  bit 63   62 .............. 22   21 ...... 12   11 ...... 0
 *  +-----+------------------------+--------------+-------------+
 *  |  0  | ms since 2024-01-01Z   |   node id    |  sequence   |
 *  |     |       41 bits          |   10 bits    |   12 bits   |
 *  +-----+------------------------+--------------+-------------+
 *  41 bits of ms last 69.7 years (until 2093-09); 4 096 IDs per ms per node; 1 024 nodes.
 *
 * State: one AtomicLong holding (timestampMs << 12 | sequence) of the last ID issued. Each call reads the
 * clock and CASes the state to
 *   - (nowMs << 12 | 0)   if the clock moved past the last timestamp, else
 *   - last + 1            which increments the sequence and, when the sequence is full (4095), carries into
 *                         the timestamp: the generator moves to the next millisecond logically.
 * The "else" branch also covers a clock that went backwards: IDs keep coming from the last timestamp
 * (borrowing milliseconds from the future) until the clock catches up. No duplicate, no exception, no wait.
 * Example, clock stuck at t: t|0, t|1, ..., t|4095, (t+1)|0, (t+1)|1, ...
 * </pre>
 *
 * <p>Thread-safe: lock-free; IDs from one generator are strictly increasing in the order the CASes succeed.
 *
 * <p>Caveats: uniqueness across servers holds only if no two running servers share a node id. Under a
 * sustained rate above 4 096 000 IDs/s, or after the clock jumps back, the embedded timestamp runs ahead of
 * the wall clock; {@link #timestampOf} then reports the logical time. A clock before the epoch is rejected at
 * construction; IDs stop (IllegalStateException) once the 41-bit timestamp is exhausted in 2093.
 */
public final class SnowflakeIdGenerator {

    /** The custom epoch: 2024-01-01T00:00:00Z. */
    public static final Instant EPOCH = Instant.parse("2024-01-01T00:00:00Z");
    /** The largest node id, 1023. */
    public static final int MAX_NODE_ID = 1023;
    /** The largest sequence within one millisecond, 4095. */
    public static final int MAX_SEQUENCE = 4095;

    private static final int SEQUENCE_BITS = 12;
    private static final int NODE_BITS = 10;
    private static final int TIMESTAMP_SHIFT = SEQUENCE_BITS + NODE_BITS; // 22
    private static final long MAX_TIMESTAMP_MS = (1L << 41) - 1; // 2 199 023 255 551 ms, 69.7 years
    private static final long EPOCH_MS = EPOCH.toEpochMilli();

    private final Clock clock;
    private final long nodeBits;
    /** (timestampMs << 12 | sequence) of the last ID issued; CAS makes concurrent callers take distinct values. */
    private final AtomicLong lastState;

    /**
     * @param nodeId this server's node id, 0..1023, unique among running servers
     * @param clock  the wall clock; read once per ID
     * @throws IllegalArgumentException if {@code nodeId} is out of range or the clock reads before the epoch
     */
    public SnowflakeIdGenerator(int nodeId, Clock clock) {
        if (nodeId < 0 || nodeId > MAX_NODE_ID) {
            throw new IllegalArgumentException("nodeId must be in 0.." + MAX_NODE_ID + ", got " + nodeId);
        }
        this.clock = Objects.requireNonNull(clock, "clock");
        long nowMs = clock.millis() - EPOCH_MS;
        if (nowMs < 0) {
            throw new IllegalArgumentException("clock reads " + clock.instant() + ", before the ID epoch " + EPOCH);
        }
        this.nodeBits = (long) nodeId << SEQUENCE_BITS;
        // Start one step before "now, sequence 0" so the first ID is exactly that.
        this.lastState = new AtomicLong((nowMs << SEQUENCE_BITS) - 1);
    }

    /**
     * @return a new ID, greater than every ID this generator issued before
     * @throws IllegalStateException once the 41-bit timestamp is exhausted (year 2093)
     */
    public long nextId() {
        while (true) {
            long last = lastState.get();
            long nowMs = clock.millis() - EPOCH_MS;
            long lastMs = last >>> SEQUENCE_BITS;
            // Clock ahead: restart the sequence. Same ms, clock behind, or sequence full: last + 1.
            long next = nowMs > lastMs ? nowMs << SEQUENCE_BITS : last + 1;
            long nextMs = next >>> SEQUENCE_BITS;
            if (nextMs > MAX_TIMESTAMP_MS) {
                throw new IllegalStateException("ID timestamp exhausted: " + nextMs + " ms since " + EPOCH
                        + " does not fit in 41 bits");
            }
            if (lastState.compareAndSet(last, next)) {
                return (nextMs << TIMESTAMP_SHIFT) | nodeBits | (next & MAX_SEQUENCE);
            }
        }
    }

    /** The (logical) millisecond an ID was issued at. */
    public static Instant timestampOf(long id) {
        return Instant.ofEpochMilli(EPOCH_MS + (id >>> TIMESTAMP_SHIFT));
    }

    /**
     * The smallest ID any generator issues in the millisecond of {@code at} (sub-millisecond parts are truncated):
     * every ID issued in that millisecond or later is at least this, every ID issued before it is smaller. So the IDs issued
     * in {@code [from, to)} are exactly those in {@code [lowestIdAt(from), lowestIdAt(to))}, and a query by creation
     * time of rows keyed by these IDs becomes a range of their primary key. Example: 2024-01-01T00:00:00.001Z is
     * {@code 1 << 22} = 4 194 304.
     *
     * <p>Instants before {@link #EPOCH} give 0 (no ID is smaller); instants after the last representable millisecond
     * (2093-09) give {@link Long#MAX_VALUE}. Neither overflows, whatever the instant ({@link Instant#MIN} and
     * {@link Instant#MAX} included).
     *
     * <p>Caveat: an ID carries the generator's logical time, which runs ahead of the wall clock under a sustained
     * burst or after the clock went back (see the class comment); such an ID falls in a later range than its wall-clock
     * issue time.
     */
    public static long lowestIdAt(Instant at) {
        Objects.requireNonNull(at, "at");
        if (at.isBefore(EPOCH)) {
            return 0;
        }
        // Compared as seconds first: toEpochMilli() overflows for instants far beyond the ID range.
        long maxSecond = (EPOCH_MS + MAX_TIMESTAMP_MS) / 1000;
        if (at.getEpochSecond() > maxSecond) {
            return Long.MAX_VALUE;
        }
        long ms = at.toEpochMilli() - EPOCH_MS;
        return ms > MAX_TIMESTAMP_MS ? Long.MAX_VALUE : ms << TIMESTAMP_SHIFT;
    }

    /** The node id of the generator that issued an ID. */
    public static int nodeIdOf(long id) {
        return (int) ((id >>> SEQUENCE_BITS) & MAX_NODE_ID);
    }

    /** The sequence number of an ID within its millisecond. */
    public static int sequenceOf(long id) {
        return (int) (id & MAX_SEQUENCE);
    }

    /** A readable form for logs and debugging, e.g. {@code 2026-01-01T00:00:00.001Z/node 7/seq 3}. */
    public static String describe(long id) {
        return timestampOf(id) + "/node " + nodeIdOf(id) + "/seq " + sequenceOf(id);
    }
}
