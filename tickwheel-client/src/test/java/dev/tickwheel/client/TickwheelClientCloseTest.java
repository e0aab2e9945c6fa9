package dev.tickwheel.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.client.model.Health;
import dev.tickwheel.client.model.HealthState;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Closing a client with calls in flight: they end as they would; new calls are refused at once. */
class TickwheelClientCloseTest {

    private static final String HEALTH_BODY = "{\"status\":\"UP\",\"store\":\"UP\",\"wheels\":\"UP\"}";
    private static final long BOUND_MS = 10_000;

    @Test
    void close_withAnAsyncCallInFlight_refusesNewCalls_andTheCallInFlightGetsItsAnswer() throws Exception {
        try (HeldAnswerServer held = new HeldAnswerServer(HEALTH_BODY, false)) {
            TickwheelClient client = TickwheelClient.builder(held.baseUrl()).retryPolicy(RetryPolicy.NONE).build();
            CompletableFuture<Health> inFlight = client.healthAsync();
            assertTrue(held.awaitArrival(BOUND_MS), "the call reached the server");

            client.close();
            assertTrue(assertThrows(IllegalStateException.class, client::health).getMessage().contains("closed"));
            held.release();

            assertEquals(HealthState.UP, inFlight.get(BOUND_MS, TimeUnit.MILLISECONDS).status());
        }
    }

    @Test
    void close_withASyncCallInFlight_theCallGetsItsAnswer() throws Exception {
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try (HeldAnswerServer held = new HeldAnswerServer(HEALTH_BODY, false)) {
            TickwheelClient client = TickwheelClient.builder(held.baseUrl()).retryPolicy(RetryPolicy.NONE).build();
            CompletableFuture<Health> inFlight = CompletableFuture.supplyAsync(client::health, caller);
            assertTrue(held.awaitArrival(BOUND_MS), "the call reached the server");

            client.close();
            held.release();

            assertEquals(HealthState.UP, inFlight.get(BOUND_MS, TimeUnit.MILLISECONDS).status());
        } finally {
            caller.shutdownNow();
        }
    }
}
