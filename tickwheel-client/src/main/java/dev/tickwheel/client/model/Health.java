package dev.tickwheel.client.model;

/**
 * {@code GET /health}: whether the server's store answers and its wheels run.
 *
 * <p>Immutable.
 *
 * @param status         UP if the store answers and the wheels run, else DOWN
 * @param store          the store at its last check (every 250 ms)
 * @param wheels         whether the timing wheels accept and fire timers
 * @param pendingTimers  instances armed in the wheels
 * @param loaderRuns     loader passes since start
 * @param loaderFailures loader passes that threw since start
 */
public record Health(HealthState status, HealthState store, HealthState wheels, long pendingTimers, long loaderRuns,
                     long loaderFailures) {

    /** Whether the server is UP. */
    public boolean up() {
        return status == HealthState.UP;
    }
}
