package dev.tickwheel.time;

/**
 * What to do with trigger times that are already in the past when a loader or the start-up recovery sees them.
 *
 * <p>Immutable.
 */
public enum MisfirePolicy {
    /** Collapse every missed trigger time into one instance that fires now. The default. */
    FIRE_ONCE_NOW,
    /** Drop missed trigger times; the job resumes at its next trigger time in the future. */
    SKIP,
    /** Create one instance per missed trigger time, up to a configured maximum, all firing now. */
    FIRE_ALL
}
