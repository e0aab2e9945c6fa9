package dev.tickwheel.server.store;

import dev.tickwheel.server.instance.InstanceStatus;

/**
 * Which instances a history listing shows ({@link InstanceStore#listLatest}): every part optional, combined with AND.
 * The id bounds are how a creation-time range reaches the store: instance ids are Snowflake ids, whose high bits are
 * the creation millisecond ({@link dev.tickwheel.id.SnowflakeIdGenerator#lowestIdAt}), so a time range is an id
 * range every index of {@code tw_instance} ends with.
 *
 * <p>Immutable.
 *
 * @param jobId  only instances of this job, or null for all
 * @param status only instances in this status, or null for all
 * @param minId  the lowest id shown (inclusive); 0 for no bound
 * @param maxId  the id every shown id is below (exclusive); {@link Long#MAX_VALUE} for no bound
 * @param namespace only instances of jobs of this namespace (deleted jobs included), or null for all
 */
public record InstanceFilter(Long jobId, InstanceStatus status, long minId, long maxId, String namespace) {

    /** Every instance. */
    public static final InstanceFilter ALL = new InstanceFilter(null, null, 0, Long.MAX_VALUE);

    /** A filter of every namespace. */
    public InstanceFilter(Long jobId, InstanceStatus status, long minId, long maxId) {
        this(jobId, status, minId, maxId, null);
    }
}
