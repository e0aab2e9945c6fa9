package dev.tickwheel.server;

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
        PoolService.Result created = pools.create("egress", 5, new InstancePool.Rate(50, 1_000));
        clock.advance(Duration.ofMinutes(1));
        PoolService.Result again = pools.create("egress", 9, null);

        assertEquals(new PoolService.Result(new InstancePool("egress", 5, new InstancePool.Rate(50, 1_000), START),
                PoolService.Creation.CREATED), created);
        assertEquals(new PoolService.Result(created.pool(), PoolService.Creation.NAME_TAKEN), again);
        assertEquals(Optional.of(created.pool()), pools.get("egress"));
        assertEquals(List.of(created.pool()), pools.list());
    }

    @Test
    void replace_setsTheLimits_andKeepsTheCreationTime_unknownNameIsEmpty() {
        pools.create("egress", 5, null);
        clock.advance(Duration.ofMinutes(1));

        InstancePool replaced = pools.replace("egress", 0, new InstancePool.Rate(3, 60_000)).orElseThrow();

        assertEquals(new InstancePool("egress", 0, new InstancePool.Rate(3, 60_000), START), replaced);
        assertEquals(Optional.of(replaced), pools.get("egress"));
        assertEquals(Optional.empty(), pools.replace("none", 1, null));
        assertEquals(Optional.empty(), pools.get("none"));
        assertEquals(List.of("egress"), replacedNames, "the replaced pool is told, the unknown one is not");
    }

    @Test
    void createOrReplace_withoutEitherLimit_isRefusedNamingMaxConcurrent_andNothingChanges() {
        pools.create("egress", 5, null);

        IllegalArgumentException created = assertThrows(IllegalArgumentException.class,
                () -> pools.create("idle", 0, null));
        IllegalArgumentException replaced = assertThrows(IllegalArgumentException.class,
                () -> pools.replace("egress", 0, null));

        assertTrue(created.getMessage().startsWith("maxConcurrent "), created.getMessage());
        assertTrue(replaced.getMessage().startsWith("maxConcurrent "), replaced.getMessage());
        assertEquals(List.of(new InstancePool("egress", 5, null, START)), pools.list());
    }

    @Test
    void delete_deletedThenNotFound() {
        pools.create("egress", 5, null);

        assertEquals(PoolStore.Deletion.DELETED, pools.delete("egress"));
        assertEquals(PoolStore.Deletion.NOT_FOUND, pools.delete("egress"));
        assertEquals(List.of(), pools.list());
    }
}
