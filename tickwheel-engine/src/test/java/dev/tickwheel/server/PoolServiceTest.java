package dev.tickwheel.server;

import static dev.tickwheel.server.access.Namespaces.DEFAULT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.pool.InstancePool;
import dev.tickwheel.server.store.PoolStore;
import dev.tickwheel.server.store.jdbc.JdbcStores;
import dev.tickwheel.server.store.jdbc.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link PoolService} over a real store (H2 in memory, one per test) and a clock set by hand: creation times from the
 * clock, a taken name answered with the stored pool, a replace that keeps the creation time, refusals that store
 * nothing. The store's own contract, races included, is {@code AbstractPoolStoreContractTest}'s.
 */
class PoolServiceTest {

    private static final Instant START = Instant.parse("2030-01-01T00:00:00.123Z");

    private final MutableClock clock = new MutableClock(START);
    private JdbcStores stores;
    private PoolService pools;
    /** The names the service said it replaced: what this member's dispatch forgets. */
    private final List<String> replacedNames = new ArrayList<>();

    @BeforeEach
    void open() {
        stores = JdbcStores.open("jdbc:h2:mem:tw_" + UUID.randomUUID().toString().replace("-", ""));
        pools = new PoolService(stores.pools(), clock, replacedNames::add);
    }

    @AfterEach
    void close() {
        stores.close();
    }

    @Test
    void create_storesThePoolAtTheClocksTime_andASecondCreateOfTheName_answersTheStoredOne() {
        PoolService.Result created = pools.create(DEFAULT, "egress", 5, new InstancePool.Rate(50, 1_000));
        clock.advance(Duration.ofMinutes(1));
        PoolService.Result again = pools.create(DEFAULT, "egress", 9, null);

        assertEquals(new PoolService.Result(new InstancePool("egress", 5, new InstancePool.Rate(50, 1_000), START),
                PoolService.Creation.CREATED), created);
        assertEquals(new PoolService.Result(created.pool(), PoolService.Creation.NAME_TAKEN), again);
        assertEquals(Optional.of(created.pool()), pools.get(DEFAULT, "egress"));
        assertEquals(List.of(created.pool()), pools.list(DEFAULT));
    }

    @Test
    void replace_setsTheLimits_andKeepsTheCreationTime_unknownNameIsEmpty() {
        pools.create(DEFAULT, "egress", 5, null);
        clock.advance(Duration.ofMinutes(1));

        InstancePool replaced = pools.replace(DEFAULT, "egress", 0, new InstancePool.Rate(3, 60_000)).orElseThrow();

        assertEquals(new InstancePool("egress", 0, new InstancePool.Rate(3, 60_000), START), replaced);
        assertEquals(Optional.of(replaced), pools.get(DEFAULT, "egress"));
        assertEquals(Optional.empty(), pools.replace(DEFAULT, "none", 1, null));
        assertEquals(Optional.empty(), pools.get(DEFAULT, "none"));
        assertEquals(List.of("egress"), replacedNames, "the replaced pool is told, the unknown one is not");
    }

    @Test
    void createOrReplace_withoutEitherLimit_isRefusedNamingMaxConcurrent_andNothingChanges() {
        pools.create(DEFAULT, "egress", 5, null);

        IllegalArgumentException created = assertThrows(IllegalArgumentException.class,
                () -> pools.create(DEFAULT, "idle", 0, null));
        IllegalArgumentException replaced = assertThrows(IllegalArgumentException.class,
                () -> pools.replace(DEFAULT, "egress", 0, null));

        assertTrue(created.getMessage().startsWith("maxConcurrent "), created.getMessage());
        assertTrue(replaced.getMessage().startsWith("maxConcurrent "), replaced.getMessage());
        assertEquals(List.of(new InstancePool("egress", 5, null, START)), pools.list(DEFAULT));
    }

    /**
     * Names are per namespace: the same name in two namespaces is two pools, each reached only through its own
     * namespace; a name holding '/' (another namespace's stored name) reaches nothing.
     */
    @Test
    void pools_ofEachNamespace_areApart_andAQualifiedNameIsNoLocalName() {
        InstancePool mine = pools.create("team-a", "egress", 5, null).pool();
        InstancePool theirs = pools.create("team-b", "egress", 7, null).pool();
        InstancePool plain = pools.create(DEFAULT, "egress", 9, null).pool();

        assertEquals("team-a/egress", mine.name(), "stored by its qualified name");
        assertEquals("egress", mine.localName());
        assertEquals("team-a", mine.namespace());
        assertEquals("egress", plain.name(), "the default namespace's keep their bare names");
        assertEquals(DEFAULT, plain.namespace());
        assertEquals(Optional.of(theirs), pools.get("team-b", "egress"));
        assertEquals(List.of(mine), pools.list("team-a"));
        assertEquals(3, pools.list(null).size());
        assertEquals(Optional.empty(), pools.get(DEFAULT, "team-a/egress"));
        assertEquals(Optional.empty(), pools.replace(DEFAULT, "team-a/egress", 1, null));
        assertEquals(PoolStore.Deletion.NOT_FOUND, pools.delete(DEFAULT, "team-b/egress"));
        assertThrows(IllegalArgumentException.class, () -> pools.create(DEFAULT, "team-c/egress", 1, null));

        assertEquals(8, pools.replace("team-b", "egress", 8, null).orElseThrow().maxConcurrent());
        assertEquals(List.of("team-b/egress"), replacedNames, "told by the name its jobs hold");
        assertEquals(PoolStore.Deletion.DELETED, pools.delete("team-a", "egress"));
        assertEquals(List.of("egress", "team-b/egress"), pools.list(null).stream().map(InstancePool::name).toList());
        assertEquals(Optional.of(plain), pools.get(DEFAULT, "egress"));
    }

    @Test
    void delete_deletedThenNotFound() {
        pools.create(DEFAULT, "egress", 5, null);

        assertEquals(PoolStore.Deletion.DELETED, pools.delete(DEFAULT, "egress"));
        assertEquals(PoolStore.Deletion.NOT_FOUND, pools.delete(DEFAULT, "egress"));
        assertEquals(List.of(), pools.list(DEFAULT));
    }
}
