package dev.tickwheel.server.store.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.store.ClusterStore;
import dev.tickwheel.server.store.ClusterView;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The {@link ClusterStore} contract as one member sees it, run once per database by a subclass. Time is the fake
 * lease clock of {@link AbstractMembersTest}. Two-member behaviour is tested where it means something: on PostgreSQL
 * ({@link PostgresClusterStoreContractTest}); on H2 a second member's join ends the first
 * ({@link H2ClusterStoreContractTest}).
 */
abstract class AbstractClusterStoreContractTest extends AbstractMembersTest {

    @Test
    void open_newSchema_has256ShardsWithUnheldLeases() {
        ClusterStore cluster = member().cluster();

        ClusterView view = cluster.view();

        assertEquals(256, cluster.shardCount());
        assertEquals(256, view.leases().size());
        for (int shard = 0; shard < 256; shard++) {
            ClusterView.ShardLease lease = view.leases().get(shard);
            assertEquals(new ClusterView.ShardLease(shard, -1, 0, 0, 0, 0), lease);
        }
        assertEquals(nowMs(), view.dbNowMs());
        assertEquals(List.of(), view.members());
    }

    @Test
    void session_twoStoresOpenedFromDefaults_differAndArePositive() {
        long a = member().cluster().session();
        long b = member().cluster().session();

        assertTrue(a > 0 && b > 0, a + ", " + b);
        assertNotEquals(a, b);
    }

    @Test
    void join_firstMember_getsLowestIdAndARowExpiringAfterTtl() {
        ClusterStore cluster = member().cluster();

        int nodeId = cluster.join(OptionalInt.empty(), "host-a pid 1", TTL);

        assertEquals(0, nodeId);
        assertEquals(List.of(new ClusterView.Member(0, cluster.session(), "host-a pid 1", nowMs(), nowMs(),
                nowMs() + TTL.toMillis())), cluster.view().members());
    }

    @Test
    void join_requestedId_getsThatId() {
        ClusterStore cluster = member().cluster();

        assertEquals(7, cluster.join(OptionalInt.of(7), "seven", TTL));
        assertEquals(7, cluster.view().members().get(0).nodeId());
    }

    @Test
    void join_badArguments_throwNamingTheValue() {
        ClusterStore cluster = member().cluster();

        IllegalArgumentException id = assertThrows(IllegalArgumentException.class,
                () -> cluster.join(OptionalInt.of(1024), "x", TTL));
        IllegalArgumentException description = assertThrows(IllegalArgumentException.class,
                () -> cluster.join(OptionalInt.empty(), "d".repeat(201), TTL));
        IllegalArgumentException ttl = assertThrows(IllegalArgumentException.class,
                () -> cluster.join(OptionalInt.empty(), "x", Duration.ZERO));

        assertTrue(id.getMessage().contains("1024"), id.getMessage());
        assertTrue(description.getMessage().contains("201"), description.getMessage());
        assertTrue(ttl.getMessage().contains("PT0S"), ttl.getMessage());
        assertEquals(List.of(), cluster.view().members());
    }

    @Test
    void join_twice_throwsIllegalState() {
        ClusterStore cluster = member().cluster();
        cluster.join(OptionalInt.empty(), "a", TTL);

        assertThrows(IllegalStateException.class, () -> cluster.join(OptionalInt.empty(), "a", TTL));
    }

    @Test
    void renewAndAcquire_beforeJoin_throwIllegalState() {
        ClusterStore cluster = member().cluster();

        assertThrows(IllegalStateException.class, () -> cluster.renew(TTL));
        assertThrows(IllegalStateException.class, () -> cluster.acquire(List.of(1), TTL));
    }

    @Test
    void acquire_freeShards_takesThemAtEpochOneUntilNowPlusTtl() {
        ClusterStore cluster = joined(member());

        Map<Integer, Long> taken = cluster.acquire(List.of(3, 1, 2), TTL);

        assertEquals(Map.of(1, 1L, 2, 1L, 3, 1L), taken);
        for (int shard : List.of(1, 2, 3)) {
            assertEquals(new ClusterView.ShardLease(shard, 0, cluster.session(), 1, nowMs(), nowMs() + TTL.toMillis()),
                    cluster.view().leases().get(shard));
        }
        assertEquals(-1, cluster.view().leases().get(4).ownerNode());
    }

    @Test
    void acquire_shardsThisMemberHolds_areNotTakenAgain() {
        ClusterStore cluster = joined(member());
        cluster.acquire(List.of(1, 2), TTL);

        Map<Integer, Long> taken = cluster.acquire(List.of(1, 2, 3), TTL);

        assertEquals(Map.of(3, 1L), taken);
        assertEquals(1, cluster.view().leases().get(1).epoch());
    }

    @Test
    void acquire_ownLeaseExpired_takesItAgainUnderTheNextEpoch() {
        ClusterStore cluster = joined(member());
        cluster.acquire(List.of(5), TTL);
        leaseClock.advance(TTL);

        Map<Integer, Long> taken = cluster.acquire(List.of(5), TTL);

        assertEquals(Map.of(5, 2L), taken, "expired at exactly now: free, and changing hands bumps the epoch");
    }

    @Test
    void acquire_badShard_throwsNamingIt() {
        ClusterStore cluster = joined(member());

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> cluster.acquire(List.of(0, 256), TTL));

        assertTrue(e.getMessage().contains("256"), e.getMessage());
        assertEquals(Map.of(), cluster.acquire(List.of(), TTL));
    }

    @Test
    void renew_extendsTheNodeRowAndEveryHeldLease() {
        ClusterStore cluster = joined(member());
        cluster.acquire(List.of(1, 2), TTL);
        long joinedAtMs = nowMs();
        leaseClock.advance(Duration.ofSeconds(4));

        ClusterStore.Renewal renewal = cluster.renew(Duration.ofSeconds(20));

        assertEquals(nowMs(), renewal.dbNowMs());
        assertEquals(Map.of(1, 1L, 2, 1L), renewal.held());
        ClusterView view = cluster.view();
        assertEquals(new ClusterView.Member(0, cluster.session(), "member", joinedAtMs, nowMs(), nowMs() + 20_000),
                view.members().get(0));
        for (int shard : List.of(1, 2)) {
            assertEquals(nowMs() + 20_000, view.leases().get(shard).expiresAtMs());
            assertEquals(joinedAtMs, view.leases().get(shard).acquiredAtMs());
        }
    }

    @Test
    void renew_leaseExpiredButNotTaken_keepsItAndItsEpoch() {
        ClusterStore cluster = joined(member());
        cluster.acquire(List.of(9), TTL);
        leaseClock.advance(TTL.plusSeconds(30));

        ClusterStore.Renewal renewal = cluster.renew(TTL);

        assertEquals(Map.of(9, 1L), renewal.held());
        assertTrue(cluster.view().leases().get(9).heldAt(nowMs()));
        assertEquals(Map.of(), cluster.acquire(List.of(9), TTL), "held again: not free to acquire");
    }

    @Test
    void release_makesTheShardAcquirableAtOnce() {
        ClusterStore cluster = joined(member());
        cluster.acquire(List.of(4, 5), TTL);

        cluster.release(List.of(4));

        ClusterView.ShardLease released = cluster.view().leases().get(4);
        assertEquals(0, released.ownerSession());
        assertEquals(-1, released.ownerNode());
        assertEquals(1, released.epoch(), "the epoch stays; the next taker bumps it");
        assertEquals(Map.of(5, 1L), cluster.renew(TTL).held());
        assertEquals(Map.of(4, 2L), cluster.acquire(List.of(4), TTL));
    }

    @Test
    void release_shardsThisMemberDoesNotHold_changesNothing() {
        ClusterStore cluster = joined(member());
        cluster.acquire(List.of(4), TTL);
        ClusterView before = cluster.view();

        cluster.release(List.of(5, 6));

        assertEquals(before, cluster.view());
    }

    @Test
    void leave_releasesEveryLeaseAndEndsTheNodeRow_idempotently() {
        ClusterStore cluster = joined(member());
        cluster.acquire(List.of(1, 2, 3), TTL);
        leaseClock.advance(Duration.ofSeconds(1));

        cluster.leave();
        ClusterView afterFirst = cluster.view();
        leaseClock.advance(Duration.ofSeconds(1));
        cluster.leave();

        assertEquals(nowMs() - 1_000, afterFirst.members().get(0).expiresAtMs(), "ended when it left");
        assertEquals(afterFirst.members(), cluster.view().members(), "a second leave changes nothing");
        assertTrue(afterFirst.leases().stream().noneMatch(l -> l.ownerSession() == cluster.session()));
        assertThrows(IllegalStateException.class, () -> cluster.renew(TTL), "renew after leave");
    }

    @Test
    void view_readsMembersAndLeasesWithTheDatabaseNow() {
        ClusterStore cluster = joined(member());
        cluster.acquire(List.of(200), TTL);
        leaseClock.advance(Duration.ofMillis(1_234));

        ClusterView view = cluster.view();

        assertEquals(nowMs(), view.dbNowMs());
        assertEquals(1, view.members().size());
        assertTrue(view.members().get(0).liveAt(view.dbNowMs()));
        Set<Integer> held = view.leases().stream().filter(l -> l.heldAt(view.dbNowMs()))
                .map(ClusterView.ShardLease::shard).collect(Collectors.toSet());
        assertEquals(Set.of(200), held);
    }

    @Test
    void databaseClock_withoutTestClock_judgesByTheDatabasesNow() {
        ClusterStore cluster = memberOnDatabaseClock().cluster();
        long beforeMs = System.currentTimeMillis();

        long dbNowMs = cluster.view().dbNowMs();
        cluster.join(OptionalInt.empty(), "real time", TTL);
        Map<Integer, Long> taken = cluster.acquire(List.of(1), TTL);
        long afterMs = System.currentTimeMillis();

        // The database runs on this machine: its clock agrees with ours to well within a second.
        assertTrue(dbNowMs >= beforeMs - 1_000 && dbNowMs <= afterMs + 1_000,
                "database now " + dbNowMs + " outside [" + beforeMs + ", " + afterMs + "]");
        ClusterView.ShardLease lease = cluster.view().leases().get(1);
        assertEquals(Map.of(1, 1L), taken);
        assertTrue(lease.acquiredAtMs() >= beforeMs - 1_000 && lease.acquiredAtMs() <= afterMs + 1_000,
                "acquired at " + lease.acquiredAtMs());
        assertEquals(lease.acquiredAtMs() + TTL.toMillis(), lease.expiresAtMs());
    }

    /** A member that joined as "member". */
    ClusterStore joined(JdbcStores stores) {
        stores.cluster().join(OptionalInt.empty(), "member", TTL);
        return stores.cluster();
    }
}
