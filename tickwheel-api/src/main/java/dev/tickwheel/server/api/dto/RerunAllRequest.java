package dev.tickwheel.server.api.dto;

import java.time.Instant;

/**
 * Body of {@code POST /api/instances/rerun}: which finished instances to rerun. Every field optional.
 *
 * <p>Immutable.
 *
 * @param jobId  only instances of this job
 * @param status only instances in this final status (SUCCEEDED, FAILED, INTERRUPTED or CANCELLED); default every final
 *               one
 * @param from   only instances created at or after this instant
 * @param to     only instances created before this instant
 * @param dryRun count the matches and write nothing; default false
 */
public record RerunAllRequest(Long jobId, String status, Instant from, Instant to, Boolean dryRun) {
}
