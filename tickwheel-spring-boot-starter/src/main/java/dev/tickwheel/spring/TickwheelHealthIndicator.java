package dev.tickwheel.spring;

import dev.tickwheel.server.TickwheelServer;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The {@code tickwheel} health: UP while scheduling runs and the store answers its probe; OUT_OF_SERVICE before
 * scheduling starts and after it stops; DOWN while the store does not answer (calls would fail with a store
 * time-out). Reads in-memory state only, never waits on the database. Add it to the readiness group:
 * {@code management.endpoint.health.group.readiness.include=readinessState,tickwheel}.
 */
public class TickwheelHealthIndicator implements HealthIndicator {

    private final TickwheelServer server;

    public TickwheelHealthIndicator(TickwheelServer server) {
        this.server = server;
    }

    @Override
    public Health health() {
        TickwheelServer.Lifecycle lifecycle = server.lifecycle();
        Health.Builder health;
        if (lifecycle != TickwheelServer.Lifecycle.RUNNING) {
            health = Health.outOfService();
        } else if (!server.storeHealthy()) {
            health = Health.down().withDetail("store", "not answering");
        } else {
            health = Health.up();
        }
        health.withDetail("lifecycle", lifecycle.name());
        try {
            if (lifecycle == TickwheelServer.Lifecycle.OPEN || lifecycle == TickwheelServer.Lifecycle.RUNNING) {
                health.withDetail("node", server.nodeId())
                        .withDetail("pendingTimers", server.pendingTimers())
                        .withDetail("callsInFlight", server.callsInFlight());
            }
        } catch (IllegalStateException closedMeanwhile) {
            return Health.outOfService().withDetail("lifecycle", server.lifecycle().name()).build();
        }
        return health.build();
    }
}
