package dev.tickwheel.bench.webhook;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * What a receiver saw: one entry per request, the instance id and attempt of its {@code Idempotency-Key} and the
 * arrival time (epoch ms). Append-only; read by the benchmark after the run.
 *
 * <h2>How it works</h2>
 * Entries live in chunks of 16 384 slots (a {@code long}, an {@code int} and a {@code long} each: 320 KiB a chunk).
 * {@link #append} takes the next slot with one {@code getAndIncrement}, installs the slot's chunk with a
 * compare-and-set if no writer has yet (a loser drops its copy), writes the attempt and the arrival time, and
 * writes the instance id last with release semantics; {@link #forEach} reads the id with acquire semantics and
 * skips a slot still 0. So an entry is seen whole or not at all, and no writer ever waits for another.
 *
 * <p>Cost: O(1) per append, no allocation but one chunk per 16 384 entries.
 *
 * <p>Thread-safe and lock-free: any number of appending and reading threads.
 *
 * <p>Caveats: at most {@link #CAPACITY} entries (67 million); instance id 0 cannot be recorded (it marks an empty
 * slot). A {@link #forEach} that runs while requests arrive sees those fully written before it reached their slot.
 */
public final class DeliveryLog {

    private static final int CHUNK_BITS = 14;
    private static final int CHUNK_SIZE = 1 << CHUNK_BITS; // 16 384 entries
    private static final int MAX_CHUNKS = 4_096;
    /** Most entries one log holds: 4 096 chunks of 16 384, 67 108 864. */
    public static final long CAPACITY = (long) MAX_CHUNKS * CHUNK_SIZE;

    /** Visits one recorded delivery. */
    @FunctionalInterface
    public interface Visitor {
        void visit(long instanceId, int attempt, long arrivalMs);
    }

    /** One chunk of slots. Only {@code instanceIds} publishes: the other arrays are written before it. */
    private static final class Chunk {
        final AtomicLongArray instanceIds = new AtomicLongArray(CHUNK_SIZE);
        final int[] attempts = new int[CHUNK_SIZE];
        final long[] arrivalMs = new long[CHUNK_SIZE];
    }

    // Next free slot; shared by every writer, so it is the one contended word.
    private final AtomicLong next = new AtomicLong();
    // Chunks installed by compare-and-set: the first writer into a chunk creates it.
    private final AtomicReferenceArray<Chunk> chunks = new AtomicReferenceArray<>(MAX_CHUNKS);

    /**
     * Records one delivery.
     *
     * @throws IllegalArgumentException if {@code instanceId} is 0
     * @throws IllegalStateException    once {@link #CAPACITY} entries are taken
     */
    public void append(long instanceId, int attempt, long arrivalMs) {
        if (instanceId == 0) {
            throw new IllegalArgumentException("instance id 0 marks an empty slot and cannot be recorded");
        }
        long slot = next.getAndIncrement();
        if (slot >= CAPACITY) {
            throw new IllegalStateException("delivery log is full: slot " + slot + " of " + CAPACITY);
        }
        Chunk chunk = chunk((int) (slot >>> CHUNK_BITS));
        int index = (int) (slot & (CHUNK_SIZE - 1));
        chunk.attempts[index] = attempt;
        chunk.arrivalMs[index] = arrivalMs;
        chunk.instanceIds.setRelease(index, instanceId);
    }

    private Chunk chunk(int number) {
        Chunk chunk = chunks.get(number);
        if (chunk != null) {
            return chunk;
        }
        Chunk fresh = new Chunk();
        Chunk witness = chunks.compareAndExchange(number, null, fresh);
        return witness != null ? witness : fresh;
    }

    /** Slots taken so far: the deliveries recorded, counting any whose entry is still being written. */
    public long size() {
        return Math.min(next.get(), CAPACITY);
    }

    /** Visits every entry fully written so far, in slot order (about arrival order). */
    public void forEach(Visitor visitor) {
        long taken = size();
        for (long slot = 0; slot < taken; slot++) {
            Chunk chunk = chunks.get((int) (slot >>> CHUNK_BITS));
            if (chunk == null) {
                continue; // its first writer took the slot but has not installed the chunk yet
            }
            int index = (int) (slot & (CHUNK_SIZE - 1));
            long instanceId = chunk.instanceIds.getAcquire(index);
            if (instanceId != 0) {
                visitor.visit(instanceId, chunk.attempts[index], chunk.arrivalMs[index]);
            }
        }
    }
}
