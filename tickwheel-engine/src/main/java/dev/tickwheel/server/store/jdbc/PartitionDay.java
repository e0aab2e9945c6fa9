package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.id.SnowflakeIdGenerator;
import java.time.Instant;
import java.time.LocalDate;

/**
 * One UTC day of the partitioned history (PostgreSQL, {@link PartitionedHistory}): the instances created in it (an id
 * range, since an id's high bits are its creation millisecond) and the schedule slots that fall in it (a range of
 * epoch milliseconds), and the names of the partitions that hold them.
 *
 * <pre>
 *   day 2026-11-26   ms [1 795 651 200 000, 1 795 737 600 000)
 *                    ids [lowestIdAt(2026-11-26T00:00Z), lowestIdAt(2026-11-27T00:00Z))
 *                    tw_instance_20261126, tw_attempt_20261126 (by instance id), tw_instance_slot_20261126 (by slot ms)
 * </pre>
 *
 * <p>Immutable.
 *
 * @param epochDay days since 1970-01-01 (UTC)
 */
record PartitionDay(long epochDay) implements Comparable<PartitionDay> {

    static final long DAY_MS = 86_400_000L;

    PartitionDay {
        LocalDate date = LocalDate.ofEpochDay(epochDay);
        if (date.getYear() < 0 || date.getYear() > 9999) {
            throw new IllegalArgumentException("a partition day must be in years 0..9999: " + date);
        }
    }

    /** The day an instance with this id was created. */
    static PartitionDay ofId(long id) {
        return ofMillis(SnowflakeIdGenerator.timestampOf(id).toEpochMilli());
    }

    /** The day of an epoch millisecond. */
    static PartitionDay ofMillis(long epochMs) {
        return new PartitionDay(Math.floorDiv(epochMs, DAY_MS));
    }

    static PartitionDay of(Instant instant) {
        return ofMillis(instant.toEpochMilli());
    }

    long fromMs() {
        return epochDay * DAY_MS;
    }

    long toMs() {
        return fromMs() + DAY_MS;
    }

    /** The lowest id created on this day (0 for days before the id epoch). */
    long fromId() {
        return SnowflakeIdGenerator.lowestIdAt(Instant.ofEpochMilli(fromMs()));
    }

    /** The lowest id created after this day. */
    long toId() {
        return SnowflakeIdGenerator.lowestIdAt(Instant.ofEpochMilli(toMs()));
    }

    PartitionDay plusDays(long days) {
        return new PartitionDay(epochDay + days);
    }

    /** The partition of {@code table} for this day: {@code tw_instance_20261126}. */
    String partitionOf(String table) {
        LocalDate date = LocalDate.ofEpochDay(epochDay);
        return String.format(java.util.Locale.ROOT, "%s_%04d%02d%02d", table, date.getYear(), date.getMonthValue(),
                date.getDayOfMonth());
    }

    @Override
    public int compareTo(PartitionDay other) {
        return Long.compare(epochDay, other.epochDay);
    }

    @Override
    public String toString() {
        return LocalDate.ofEpochDay(epochDay).toString();
    }
}
