package dev.tickwheel.server.store.jdbc;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Infrastructure of the cluster tests: each test gets a fresh database of its own, on which it opens any number of
 * cluster members, each a {@link JdbcStores} with its own random session, all judging leases by one fake clock
 * ({@link #leaseClock}), so that expiry is a matter of {@link MutableClock#advance}, never of waiting.
 *
 * <p>Not thread-safe: members are opened from the test's thread.
 */
abstract class AbstractMembersTest {

    static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
    static final Duration TTL = Duration.ofSeconds(10);

    /** The clock every lease and fence statement of every member judges time by. */
    protected final MutableClock leaseClock = new MutableClock(T0);
    /** Stamps created/updated times. */
    protected final MutableClock clock = new MutableClock(T0);
    private final List<JdbcStores> opened = new ArrayList<>();
    private final AtomicInteger members = new AtomicInteger();
    private String url;

    /** Creates an empty database for one test and returns its JDBC URL; members open it one after another. */
    protected abstract String createDatabase() throws Exception;

    /** Removes what {@link #createDatabase()} created. */
    protected abstract void dropDatabase() throws Exception;

    @BeforeEach
    void createMembersDatabase() throws Exception {
        url = createDatabase();
    }

    @AfterEach
    void closeMembers() throws Exception {
        for (JdbcStores stores : opened) {
            stores.close();
        }
        opened.clear();
        dropDatabase();
    }

    /** A new member on the test's database: its own pool and random session, leases judged by {@link #leaseClock}. */
    protected JdbcStores member() {
        return member(4);
    }

    protected JdbcStores member(int maxPoolSize) {
        JdbcStores stores = JdbcStores.open(JdbcStoreConfig.builder()
                .jdbcUrl(url)
                .poolName("tickwheel-member-" + members.incrementAndGet())
                .maxPoolSize(maxPoolSize)
                .clock(clock)
                .leaseClock(leaseClock)
                .build());
        opened.add(stores);
        return stores;
    }

    /** A member that judges leases by the database's own clock, as in production. */
    protected JdbcStores memberOnDatabaseClock() {
        JdbcStores stores = JdbcStores.open(JdbcStoreConfig.builder()
                .jdbcUrl(url)
                .poolName("tickwheel-member-" + members.incrementAndGet())
                .maxPoolSize(2)
                .build());
        opened.add(stores);
        return stores;
    }

    /** The lease clock in epoch milliseconds. */
    protected long nowMs() {
        return leaseClock.millis();
    }
}
