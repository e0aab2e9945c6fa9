package dev.tickwheel.server.app;

import dev.tickwheel.server.TickwheelServer;
import dev.tickwheel.server.dispatch.InstanceDispatcher;
import java.time.Duration;
import java.util.Objects;

/**
 * The standalone server's dispatch settings: deadlines and bulkheads.
 *
 * <p>Immutable.
 *
 * @param callTimeout      whole-call deadline of jobs that set none
 * @param maxCallsInFlight calls in flight on the server, at most
 * @param maxCallsPerHost  calls in flight to one webhook host, at most
 * @param handlerThreads   threads running synchronous in-process handlers
 */
public record DispatchSettings(Duration callTimeout, int maxCallsInFlight, int maxCallsPerHost, int handlerThreads) {

    /** The engine's defaults. */
    public static final DispatchSettings DEFAULTS = new DispatchSettings(InstanceDispatcher.DEFAULT_CALL_TIMEOUT,
            InstanceDispatcher.DEFAULT_MAX_CALLS_IN_FLIGHT, InstanceDispatcher.DEFAULT_MAX_CALLS_PER_HOST,
            TickwheelServer.DEFAULT_HANDLER_THREADS);

    public DispatchSettings {
        Objects.requireNonNull(callTimeout, "callTimeout");
    }

    /** Applies these settings to an engine builder (which validates them). */
    TickwheelServer.Builder applyTo(TickwheelServer.Builder builder) {
        return builder.callTimeout(callTimeout).maxCallsInFlight(maxCallsInFlight).maxCallsPerHost(maxCallsPerHost)
                .handlerThreads(handlerThreads);
    }
}
