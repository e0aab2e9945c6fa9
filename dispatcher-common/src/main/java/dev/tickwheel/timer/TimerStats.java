package dev.tickwheel.timer;

/**
 * A snapshot of a timer's counters since it was built. The counters are read one by one while the timer runs, so
 * they need not add up exactly.
 *
 * <p>Immutable.
 *
 * @param scheduled timeouts accepted by {@code schedule} or {@code accept}
 * @param expired   timeouts whose deadline passed and that were handed on (executor, handler or inline run)
 * @param cancelled timeouts cancelled while this timer owned them, counted when its worker drops them
 * @param deferred  hand-offs the executor refused (or failed) and that were retried a tick later (one timeout may
 *                  count more than once)
 * @param failed    tasks that threw, and hand-offs the executor failed with an exception other than a rejection
 * @param pending   scheduled minus expired minus cancelled: the timeouts this timer holds in its wheel, hand-off queue
 *                  or deferred list, including a cancelled one until the worker drops it
 */
public record TimerStats(long scheduled, long expired, long cancelled, long deferred, long failed, long pending) {
}
