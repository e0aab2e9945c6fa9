package dev.tickwheel.server.store;

/**
 * One attempt of an instance whose job completes by callback, as its callback token names it: a report, a heartbeat
 * or a deadline applies to the row only while it is still DISPATCHING under exactly this attempt and claim epoch.
 *
 * <p>Immutable.
 *
 * @param instanceId the instance
 * @param attempt    the attempt number of the call that carried the callback URL
 * @param claimEpoch the shard lease epoch that call was claimed under
 */
public record CallbackAttempt(long instanceId, int attempt, long claimEpoch) {
}
