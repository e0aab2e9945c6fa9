package dev.tickwheel.bench.webhook;

import dev.tickwheel.bench.e2e.BenchDatabase;
import dev.tickwheel.bench.e2e.StoreRows;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.store.jdbc.JdbcStores;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * One run of one webhook scenario, from this (the measuring) JVM: starts the scenario's {@link LoadReceiver}s and a
 * fresh store, has the server side run ({@link ServerRun}, in a child JVM or here), then reads the store's rows and
 * the receivers' logs and judges them ({@link ScenarioJudge}).
 *
 * <p>The receivers live here, not with the server, so that their threads, buffers and held requests never count in
 * the server's heap or GC, as with a real receiver on another machine.
 *
 * <p>Stateless.
 */
public final class ScenarioRun {

    /** Runs the server side of a scenario and returns what it measured ({@link ServerRun}'s keys). */
    @FunctionalInterface
    public interface ServerSide {
        Map<String, String> run(WebhookScenario scenario, ScenarioSettings settings, String jdbcUrl,
                                List<String> receiverUrls);
    }

    /** Time for a repeated call, were there one, to reach a receiver after the server has stopped. */
    private static final long LATE_DUPLICATE_WAIT_MS = 500;

    private ScenarioRun() {
    }

    public static ScenarioResult run(WebhookScenario scenario, ScenarioSettings settings,
                                     Supplier<BenchDatabase> databases, ServerSide serverSide) {
        List<LoadReceiver> receivers = new ArrayList<>();
        try (BenchDatabase database = databases.get()) {
            for (ReceiverMode mode : scenario.receivers(settings)) {
                receivers.add(LoadReceiver.start(mode));
            }
            Map<String, String> server = serverSide.run(scenario, settings, database.jdbcUrl(),
                    receivers.stream().map(LoadReceiver::url).toList());
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(LATE_DUPLICATE_WAIT_MS));
            List<Instance> rows;
            try (JdbcStores stores = JdbcStores.open(database.jdbcUrl())) {
                rows = StoreRows.readAll(stores.instances());
            }
            return ScenarioJudge.judge(scenario, settings, server, rows, receivers);
        } finally {
            receivers.forEach(LoadReceiver::close);
        }
    }
}
