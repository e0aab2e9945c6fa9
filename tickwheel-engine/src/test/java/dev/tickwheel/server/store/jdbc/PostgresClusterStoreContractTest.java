package dev.tickwheel.server.store.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.store.ClusterStore;
import dev.tickwheel.server.store.ClusterView;
import dev.tickwheel.server.store.MemberEvictedException;
import dev.tickwheel.server.store.StoreInUseException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The cluster store contract on PostgreSQL, each test in a schema of its own (fails, never skips, when the server is
 * unreachable; see {@link PostgresTestDatabase}), plus what only a multi-process store has: several live members on
 * one database.
 */
class PostgresClusterStoreContractTest extends AbstractClusterStoreContractTest {

    private PostgresTestDatabase database;

    @Override
    protected String createDatabase() {
        database = PostgresTestDatabase.createSchema();
        return database.jdbcUrl();
    }

    @Override
    protected void dropDatabase() throws SQLException {
        if (database != null) {
            database.dropSchema();
        }
    }

    @Test
    void singleProcess_isFalse() {
        assertFalse(member().cluster().singleProcess());
    }

    @Test
    void join_secondLiveMember_getsTheNextId() {
        ClusterStore a = member().cluster();
        ClusterStore b = member().cluster();

        assertEquals(0, a.join(OptionalInt.empty(), "a", TTL));
        assertEquals(1, b.join(OptionalInt.empty(), "b", TTL));
        assertEquals(List.of(0, 1), a.view().members().stream().map(ClusterView.Member::nodeId).toList());
    }

    @Test
    void join_requestedIdHeldByLiveMember_refusedNamingTheId() {
        ClusterStore a = member().cluster();
        a.join(OptionalInt.of(3), "a", TTL);
        ClusterStore b = member().cluster();
        leaseClock.advance(TTL.minusMillis(1));

        StoreInUseException e = assertThrows(StoreInUseException.class,
                () -> b.join(OptionalInt.of(3), "b", TTL));

        assertTrue(e.getMessage().contains("node id 3"), e.getMessage());
        assertEquals(List.of(a.session()), b.view().members().stream().map(ClusterView.Member::session).toList());
    }

    @Test
    void join_requestedIdOfExpiredMember_takenWithoutTheGrace() {
        ClusterStore a = member().cluster();
        a.join(OptionalInt.of(3), "a", TTL);
        ClusterStore b = member().cluster();
        leaseClock.advance(TTL);

        assertEquals(3, b.join(OptionalInt.of(3), "b", TTL));
        assertThrows(MemberEvictedException.class, () -> a.renew(TTL));
    }

    @Test
    void join_idOfExpiredMember_reusedOnlyAfterTheGrace() {
        ClusterStore a = member().cluster();
        assertEquals(0, a.join(OptionalInt.empty(), "a", TTL));
        Duration expiredAndGrace = TTL.plus(ClusterStore.NODE_ID_REUSE_GRACE);

        leaseClock.advance(expiredAndGrace.minusMillis(1));
        int beforeGrace = member().cluster().join(OptionalInt.empty(), "b", TTL);
        leaseClock.advance(Duration.ofMillis(1));
        int afterGrace = member().cluster().join(OptionalInt.empty(), "c", TTL);

        assertEquals(1, beforeGrace);
        assertEquals(0, afterGrace);
        MemberEvictedException evicted = assertThrows(MemberEvictedException.class, () -> a.renew(TTL));
        assertTrue(evicted.getMessage().contains("node id 0"), evicted.getMessage());
    }

    @Test
    void join_idOfMemberThatLeft_reusedOnlyAfterTheGrace() {
        ClusterStore a = member().cluster();
        a.join(OptionalInt.empty(), "a", TTL);
        a.leave();

        leaseClock.advance(ClusterStore.NODE_ID_REUSE_GRACE.minusMillis(1));
        assertEquals(1, member().cluster().join(OptionalInt.empty(), "b", TTL));
        leaseClock.advance(Duration.ofMillis(1));
        assertEquals(0, member().cluster().join(OptionalInt.empty(), "c", TTL));
    }

    @Test
    void renew_nodeRowExpiredButNotTaken_isNotAnEviction() {
        ClusterStore a = joined(member());
        a.acquire(List.of(1), TTL);
        leaseClock.advance(TTL.plus(ClusterStore.NODE_ID_REUSE_GRACE).plusSeconds(5));

        assertEquals(Map.of(1, 1L), a.renew(TTL).held());
    }

    @Test
    void acquire_shardHeldByLiveMember_isNotTaken() {
        ClusterStore a = joined(member());
        ClusterStore b = joined(member());
        a.acquire(List.of(1, 2), TTL);
        leaseClock.advance(TTL.minusMillis(1));

        assertEquals(Map.of(3, 1L), b.acquire(List.of(1, 2, 3), TTL));
        assertEquals(a.session(), b.view().leases().get(1).ownerSession());
    }

    @Test
    void acquire_expiredLeaseOfAnotherMember_takenUnderTheNextEpoch() {
        ClusterStore a = joined(member());
        ClusterStore b = joined(member());
        a.acquire(List.of(1, 2), TTL);
        leaseClock.advance(TTL);

        Map<Integer, Long> taken = b.acquire(List.of(1, 2), TTL);

        assertEquals(Map.of(1, 2L, 2, 2L), taken);
        assertEquals(new ClusterView.ShardLease(1, 1, b.session(), 2, nowMs(), nowMs() + TTL.toMillis()),
                b.view().leases().get(1));
        assertEquals(Map.of(), a.renew(TTL).held(), "the old owner's renewal no longer finds them");
    }

    @Test
    void acquire_releasedByAnotherMember_takenAtOnce() {
        ClusterStore a = joined(member());
        ClusterStore b = joined(member());
        a.acquire(List.of(7), TTL);

        a.release(List.of(7));

        assertEquals(Map.of(7, 2L), b.acquire(List.of(7), TTL));
    }

    @Test
    void release_byNonOwner_leavesTheOwnersLease() {
        ClusterStore a = joined(member());
        ClusterStore b = joined(member());
        a.acquire(List.of(7), TTL);

        b.release(List.of(7));
        b.leave();

        assertEquals(Map.of(7, 1L), a.renew(TTL).held());
    }

    /**
     * Members race to acquire all shards, many rounds: every shard goes to exactly one of them, and (shard, epoch)
     * names one owner across all rounds.
     */
    @Test
    void acquire_fourMembersRaceForAllShards_eachShardToExactlyOne() throws Exception {
        int memberCount = 4;
        List<ClusterStore> members = new ArrayList<>();
        for (int i = 0; i < memberCount; i++) {
            members.add(joined(member()));
        }
        List<Integer> all = ShardHolder.allShards(members.get(0));
        Map<String, Long> ownerOfShardEpoch = new HashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(memberCount);
        try {
            for (int round = 0; round < 20; round++) {
                CyclicBarrier start = new CyclicBarrier(memberCount);
                List<Future<Map<Integer, Long>>> results = new ArrayList<>();
                for (ClusterStore m : members) {
                    results.add(pool.submit(() -> {
                        start.await();
                        return m.acquire(all, TTL);
                    }));
                }
                Map<Integer, Long> takenThisRound = new HashMap<>();
                for (int i = 0; i < memberCount; i++) {
                    Map<Integer, Long> taken = results.get(i).get();
                    for (Map.Entry<Integer, Long> e : taken.entrySet()) {
                        assertEquals(null, takenThisRound.put(e.getKey(), e.getValue()),
                                "shard " + e.getKey() + " taken twice in round " + round);
                        Long previous = ownerOfShardEpoch.put(e.getKey() + "@" + e.getValue(),
                                members.get(i).session());
                        assertEquals(null, previous, "shard@epoch " + e.getKey() + "@" + e.getValue());
                    }
                }
                assertEquals(all.size(), takenThisRound.size(), "every shard taken in round " + round);
                for (int shard : all) {
                    assertEquals(round + 1L, takenThisRound.get(shard), "epoch of shard " + shard);
                }
                leaseClock.advance(TTL); // every lease expires: the next round races again
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
