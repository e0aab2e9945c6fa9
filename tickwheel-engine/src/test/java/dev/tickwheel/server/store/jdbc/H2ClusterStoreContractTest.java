package dev.tickwheel.server.store.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.store.ClusterStore;
import dev.tickwheel.server.store.ClusterView;
import dev.tickwheel.server.store.MemberEvictedException;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * The cluster store contract on H2, plus H2's own rule: the store is single-process, so a member that joins ends
 * every earlier member (a process that is gone) at once. Two live members are meaningless here, so the two-member
 * races are PostgreSQL's ({@link PostgresClusterStoreContractTest}).
 */
class H2ClusterStoreContractTest extends AbstractClusterStoreContractTest {

    @Override
    protected String createDatabase() {
        return H2MemberDatabases.create();
    }

    @Override
    protected void dropDatabase() {
        // An in-memory H2 database disappears with its last connection.
    }

    @Test
    void singleProcess_isTrue() {
        assertTrue(member().cluster().singleProcess());
    }

    @Test
    void join_singleProcess_endsEarlierMembersAtOnce() {
        ClusterStore earlier = joined(member());
        earlier.acquire(List.of(1, 2), TTL);
        ClusterStore next = member().cluster();

        int nodeId = next.join(OptionalInt.empty(), "restarted", TTL);

        assertEquals(0, nodeId, "the earlier process's id is free at once, without the grace");
        ClusterView view = next.view();
        assertEquals(List.of(next.session()), view.members().stream().map(ClusterView.Member::session).toList());
        for (int shard : List.of(1, 2)) {
            ClusterView.ShardLease lease = view.leases().get(shard);
            assertEquals(0, lease.ownerSession(), "released");
            assertEquals(1, lease.epoch(), "kept: the next taker bumps it");
        }
        assertEquals(Map.of(1, 2L, 2, 2L), next.acquire(List.of(1, 2), TTL), "acquirable at once, unexpired");
        assertThrows(MemberEvictedException.class, () -> earlier.renew(TTL));
    }

    @Test
    void join_singleProcess_requestedIdOfEarlierMember_isGiven() {
        joined(member()).acquire(List.of(1), TTL);

        assertEquals(0, member().cluster().join(OptionalInt.of(0), "same id after a restart", TTL));
    }
}
