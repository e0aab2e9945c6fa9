package dev.tickwheel.client.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;

/**
 * Which finished instances {@code client.instances().rerunAll} reruns: the body of {@code POST /api/instances/rerun}.
 * Every field may be null (no filter on it).
 *
 * <p>Immutable. Start from {@link #failedOf(long)} or {@link #all()}, then {@link #between}, {@link #asDryRun()}.
 *
 * @param jobId  only instances of this job (sent as a string, as the API's IDs are)
 * @param status only instances in this final status; null for every final one
 * @param from   only instances created at or after this instant
 * @param to     only instances created before this instant
 * @param dryRun count the matches and write nothing
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RerunFilter(String jobId, InstanceStatus status, Instant from, Instant to, Boolean dryRun) {

    /** Every finished instance of every job. */
    public static RerunFilter all() {
        return new RerunFilter(null, null, null, null, null);
    }

    /** The FAILED instances of one job. */
    public static RerunFilter failedOf(long jobId) {
        return new RerunFilter(Long.toString(jobId), InstanceStatus.FAILED, null, null, null);
    }

    /** This filter, only instances created in {@code [from, to)}. */
    public RerunFilter between(Instant from, Instant to) {
        return new RerunFilter(jobId, status, from, to, dryRun);
    }

    /** This filter as a dry run: the answer counts the matches, nothing is written. */
    public RerunFilter asDryRun() {
        return new RerunFilter(jobId, status, from, to, true);
    }
}
