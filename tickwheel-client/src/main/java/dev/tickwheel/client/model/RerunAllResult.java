package dev.tickwheel.client.model;

/**
 * The answer of a bulk rerun.
 *
 * <p>Immutable.
 *
 * @param matched finished instances that matched (those the call examined)
 * @param created reruns made (0 for a dry run, and for matches rerun before)
 * @param more    the call stopped at its cap (10 000 reruns): call again for the rest
 */
public record RerunAllResult(long matched, long created, boolean more) {
}
