package dev.tickwheel.bench.webhook;

import java.util.List;
import java.util.Locale;

/**
 * The four webhook scenarios of issue 10, and the receivers each needs (their URLs reach the server in this order).
 *
 * <p>Immutable.
 */
public enum WebhookScenario {

    /** A receiver that answers at once: throughput over HTTP, compared with the in-process handler's. */
    FAST,
    /** A receiver that answers after 1 s, calls in flight limited: sustained rate, and DISPATCHING rows. */
    SLOW,
    /** Calls to a stalled receiver and, due at the same time, calls to a healthy one on another port. */
    STALLED,
    /** Many calls held in flight by the receiver: heap per call in flight. */
    HEAP;

    /** The receivers this scenario calls: for STALLED the stalled one first, then the healthy one. */
    public List<ReceiverMode> receivers(ScenarioSettings settings) {
        return switch (this) {
            case FAST -> List.of(ReceiverMode.fast());
            case SLOW -> List.of(ReceiverMode.latency(settings.slowLatencyMs()));
            case STALLED -> List.of(settings.stallMode(), ReceiverMode.fast());
            case HEAP -> List.of(ReceiverMode.latency(settings.heapHoldMs()));
        };
    }

    /** Instances the scenario creates. */
    public int instances(ScenarioSettings settings) {
        return switch (this) {
            case FAST -> settings.fastInstances();
            case SLOW -> settings.slowInstances();
            case STALLED -> settings.stalledCalls() + settings.healthyCalls();
            case HEAP -> settings.heapCalls();
        };
    }

    /** The name on the command line and in results: {@code fast}, {@code slow}, {@code stalled}, {@code heap}. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @throws IllegalArgumentException naming the text and the choices */
    public static WebhookScenario of(String id) {
        for (WebhookScenario s : values()) {
            if (s.id().equals(id)) {
                return s;
            }
        }
        throw new IllegalArgumentException("scenario must be one of fast, slow, stalled, heap: " + id);
    }
}
