package dev.tickwheel.server.api.dto;

/**
 * Answer of {@code GET /health}: 200 when {@code status} is UP, 503 when DOWN.
 *
 * <p>Immutable.
 *
 * @param status          UP if the store answers and the wheels run, else DOWN
 * @param store           UP or DOWN: at the store probe's last check (every 250 ms, on a connection of its own) the
 *                        database answered {@code SELECT 1} within 500 ms and the pool held a connection; read, not
 *                        asked for this request, so health answers at once during an outage
 * @param wheels          UP or DOWN: the timing wheels accept and fire timers
 * @param pendingTimers   instances armed in the wheels
 * @param loaderRuns      loader passes since start
 * @param loaderFailures  loader passes that threw since start
 */
public record HealthResponse(String status, String store, String wheels, long pendingTimers, long loaderRuns,
                             long loaderFailures) {
}
