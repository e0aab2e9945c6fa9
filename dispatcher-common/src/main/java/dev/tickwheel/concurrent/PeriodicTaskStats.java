package dev.tickwheel.concurrent;

/**
 * Counters of one periodic task, for metrics and health checks.
 *
 * <p>Immutable snapshot.
 *
 * @param name     the task's name
 * @param runs     completed runs, successful or not
 * @param failures runs that threw
 */
public record PeriodicTaskStats(String name, long runs, long failures) {
}
