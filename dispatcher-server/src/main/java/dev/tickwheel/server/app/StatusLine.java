package dev.tickwheel.server.app;

import dev.tickwheel.server.TickwheelServer;

/**
 * The figures of {@link Main}'s periodic DEBUG status line, all read from memory: the wheels, the dispatcher and the
 * loader's counters. Reading them never touches the store, so the line costs nothing however big the instance table
 * grows; per-status instance counts are on {@code /metrics} and the dashboard.
 *
 * <p>Immutable.
 *
 * @param wheelPending      instances armed in either wheel
 * @param precisePending    of those, in the precise wheel (delays up to 60 s, 1 ms buckets)
 * @param coarsePending     of those, in the coarse wheel (longer delays, 10 s buckets)
 * @param callsInFlight     calls admitted and not yet recorded
 * @param waitingForSlot    fired instances waiting for a call slot
 * @param loaderRuns        loader passes since start
 * @param loaderFailures    loader passes that threw since start
 */
public record StatusLine(int wheelPending, long precisePending, long coarsePending, int callsInFlight,
                         int waitingForSlot, long loaderRuns, long loaderFailures) {

    /** Reads the figures of a started engine; no store query. */
    public static StatusLine of(TickwheelServer engine) {
        var loader = engine.loaderStats();
        return new StatusLine(engine.pendingTimers(), engine.wheel().preciseWheelStats().pending(),
                engine.wheel().coarseWheelStats().pending(), engine.callsInFlight(), engine.waitingForCallSlot(),
                loader.runs(), loader.failures());
    }

    /** The log line, e.g. {@code status: wheel pending 3 (precise 1, coarse 2) | calls in flight 0, ...}. */
    public String format() {
        return "status: wheel pending " + wheelPending + " (precise " + precisePending + ", coarse " + coarsePending
                + ") | calls in flight " + callsInFlight + ", waiting for a slot " + waitingForSlot + " | loader runs "
                + loaderRuns + ", failed " + loaderFailures;
    }
}
