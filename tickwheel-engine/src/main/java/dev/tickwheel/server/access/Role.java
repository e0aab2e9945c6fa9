package dev.tickwheel.server.access;

/**
 * What an API token may do, each role including the ones before it.
 *
 * <p>Immutable.
 */
public enum Role {
    /** Reads jobs, instances, workflows, pools, calendars and the audit trail of its namespace. */
    READ,
    /** And runs, cancels, reschedules and reruns instances, enables and disables jobs, runs and cancels workflows. */
    OPERATE,
    /** And creates, changes and deletes jobs, workflows, pools and calendars, and manages tokens. */
    ADMIN;

    /** True if this role may do what {@code needed} may. */
    public boolean covers(Role needed) {
        return compareTo(needed) >= 0;
    }
}
