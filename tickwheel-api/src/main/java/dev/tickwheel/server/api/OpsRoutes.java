package dev.tickwheel.server.api;

import dev.tickwheel.concurrent.PeriodicTaskStats;
import dev.tickwheel.server.TickwheelServer;
import dev.tickwheel.server.api.dto.ClusterResponse;
import dev.tickwheel.server.api.dto.HealthResponse;
import dev.tickwheel.server.store.ClusterView;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code GET /health} (200 or 503 with details), {@code GET /api/cluster} (members and shard leases) and
 * {@code GET /metrics} (Prometheus text).
 *
 * <p>Thread-safe (immutable).
 */
final class OpsRoutes {

    static final String PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final TickwheelServer engine;
    private final Supplier<String> scrape;

    /** @param scrape renders the metrics registry in the Prometheus text format */
    OpsRoutes(TickwheelServer engine, Supplier<String> scrape) {
        this.engine = engine;
        this.scrape = scrape;
    }

    void health(ApiExchange ctx) {
        boolean store = engine.storeHealthy();
        boolean wheels = engine.wheelsRunning();
        long pending = 0;
        long runs = 0;
        long failures = 0;
        if (wheels) {
            pending = engine.pendingTimers();
            PeriodicTaskStats loader = engine.loaderStats();
            runs = loader.runs();
            failures = loader.failures();
        }
        boolean up = store && wheels;
        ctx.status(up ? 200 : 503).json(new HealthResponse(up ? "UP" : "DOWN", store ? "UP" : "DOWN",
                wheels ? "UP" : "DOWN", pending, runs, failures));
    }

    /** {@code GET /api/cluster}: members and shard leases, read from the store. */
    void cluster(ApiExchange ctx) {
        ClusterView view = engine.clusterView();
        long now = view.dbNowMs();
        Map<Integer, Integer> held = new HashMap<>();
        List<ClusterResponse.Shard> shards = new ArrayList<>(view.leases().size());
        for (ClusterView.ShardLease lease : view.leases()) {
            boolean isHeld = lease.heldAt(now);
            if (isHeld) {
                held.merge(lease.ownerNode(), 1, Integer::sum);
            }
            shards.add(new ClusterResponse.Shard(lease.shard(), isHeld ? lease.ownerNode() : -1, lease.epoch(),
                    isHeld ? now - lease.acquiredAtMs() : 0, lease.expiresAtMs() - now));
        }
        List<ClusterResponse.Node> nodes = new ArrayList<>(view.members().size());
        for (ClusterView.Member member : view.members()) {
            nodes.add(new ClusterResponse.Node(member.nodeId(), member.description(), member.liveAt(now),
                    member.nodeId() == engine.nodeId(), Instant.ofEpochMilli(member.startedAtMs()).toString(),
                    now - member.heartbeatAtMs(), member.liveAt(now) ? held.getOrDefault(member.nodeId(), 0) : 0));
        }
        ctx.json(new ClusterResponse(engine.nodeId(), view.leases().size(), nodes, shards));
    }

    void metrics(ApiExchange ctx) {
        ctx.contentType(PROMETHEUS_CONTENT_TYPE).result(scrape.get());
    }
}
