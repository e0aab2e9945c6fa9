package dev.tickwheel.server.api.dto;

/**
 * Answer of {@code GET /health}: 200 when {@code status} is UP, 503 when DOWN.
 *
 * <p>Immutable.
 *
 * @param status          UP if the store answers and the wheels run, else DOWN
 * @param store           UP or DOWN: a pooled connection passed the JDBC validity check
 *                        ({@code Connection.isValid}) within 2 s
 * @param wheels          UP or DOWN: the timing wheels accept and fire timers
 * @param pendingTimers   instances armed in the wheels
 * @param loaderRuns      loader passes since start
 * @param loaderFailures  loader passes that threw since start
 */
public record HealthResponse(String status, String store, String wheels, long pendingTimers, long loaderRuns,
                             long loaderFailures) {
}
