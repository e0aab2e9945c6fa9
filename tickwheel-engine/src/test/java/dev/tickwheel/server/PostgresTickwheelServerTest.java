package dev.tickwheel.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.store.Shards;
import dev.tickwheel.server.store.jdbc.PostgresTestDatabase;
import dev.tickwheel.time.ScheduleSpec;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * The engine on PostgreSQL ({@code TICKWHEEL_TEST_PG_URL}, default {@code 127.0.0.1:5432/test}), each test in a schema
 * of its own. Fails, never skips, when the server is unreachable.
 */
class PostgresTickwheelServerTest extends AbstractTickwheelServerTest {

    private PostgresTestDatabase database;

    @Override
    String jdbcUrl() {
        database = PostgresTestDatabase.createSchema();
        return database.jdbcUrl();
    }

    @Override
    void dropStore() throws SQLException {
        database.dropSchema();
    }

    @Test
    void secondServer_sameStore_joinsTheCluster_sharesTheShards_andRunsAskedOfItAreDispatched() {
        Set<Long> ranOnSecond = ConcurrentHashMap.newKeySet();
        try (TickwheelServer second = TickwheelServer.builder().jdbcUrl(url)
                .handler("count", ctx -> ranOnSecond.add(ctx.instanceId()))
                .build().start()) {
            assertNotEquals(server.nodeId(), second.nodeId(), "each member leases its own node id");
            Await.until(() -> "both members hold shards: " + server.leases().heldShards().size() + " + "
                    + second.leases().heldShards().size(), WAIT, () -> !server.leases().heldShards().isEmpty()
                    && !second.leases().heldShards().isEmpty()
                    && server.leases().heldShards().size() + second.leases().heldShards().size() == 256);
            Set<Integer> overlap = new HashSet<>(server.leases().heldShards());
            overlap.retainAll(second.leases().heldShards());
            assertEquals(Set.of(), overlap, "no shard held by both");

            // Jobs and runs created through the second member; whichever member owns a run's shard (its own: these
            // jobs spread their instances) runs it.
            List<Long> runs = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                Job job = second.jobs().create(JobSpec.of("job " + i, ScheduleSpec.api(), Target.handler("count")));
                runs.add(second.jobs().run(job.id(), 0, null).id());
            }
            for (long id : runs) {
                Instance done = awaitStatus(id, InstanceStatus.SUCCEEDED);
                int owner = done.shard();
                assertEquals(Shards.of(done.id(), Shards.DEFAULT_COUNT), owner, "the run's own shard");
                assertEquals(second.leases().heldShards().contains(owner) ? second.nodeId() : server.nodeId(),
                        done.claimNode(), "claimed by the owner of shard " + owner);
            }
            assertTrue(calls("count") > 0 && !ranOnSecond.isEmpty(),
                    "both members ran some: first " + calls("count") + ", second " + ranOnSecond.size());
        }
    }
    @Test
    void declare_racedByTwoMembers_makesOneJob() throws Exception {
        try (TickwheelServer second = TickwheelServer.builder().jdbcUrl(url).handler("count", ctx -> { }).build()
                .open()) {
            for (int round = 0; round < 20; round++) {
                JobSpec spec = JobSpec.of("raced " + round, ScheduleSpec.api(), Target.handler("count"));
                java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(2);
                java.util.concurrent.CompletableFuture<JobService.Declared> other =
                        java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                            await(start);
                            return second.jobs().declare(spec);
                        });
                await(start);
                JobService.Declared here = server.jobs().declare(spec);
                JobService.Declared there = other.get();
                assertEquals(here.job().id(), there.job().id(), "round " + round);
                assertEquals(1, server.jobs().search("raced " + round, null, 10).items().stream()
                        .filter(job -> job.name().equals(spec.name())).count(), "round " + round);
                assertEquals(Set.of(JobService.Declared.Change.CREATED, JobService.Declared.Change.UNCHANGED),
                        Set.of(here.change(), there.change()), "round " + round);
            }
        }
    }

    private static void await(java.util.concurrent.CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
