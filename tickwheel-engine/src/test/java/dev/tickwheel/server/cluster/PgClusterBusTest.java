package dev.tickwheel.server.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.tickwheel.server.Await;
import dev.tickwheel.server.store.jdbc.PostgresTestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The PostgreSQL bus against the test server: members on one schema hear each other and not themselves, another schema
 * hears nothing, a burst arrives whole and in order in few notifications, and a killed listening connection is
 * replaced and followed by a Resync. Each bus has its own pool, tagged with an application name, so that the test
 * can see in {@code pg_stat_activity} when a bus listens and which backend to kill.
 */
class PgClusterBusTest {

    private static final Duration BOUND = Duration.ofSeconds(20);

    private final List<PostgresTestDatabase> schemas = new ArrayList<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private PostgresTestDatabase schema;
    private Connection admin;

    /** A bus with its pool and what it received. */
    private record Member(PgClusterBus bus, HikariDataSource pool, String applicationName, String channel,
                          List<ClusterEvent> received) {
    }

    @BeforeEach
    void createSchema() throws SQLException {
        schema = newSchema();
        admin = DriverManager.getConnection(schema.jdbcUrl());
    }

    @AfterEach
    void closeEverything() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
        admin.close();
        for (PostgresTestDatabase db : schemas) {
            db.dropSchema();
        }
    }

    @Test
    void publish_twoMembersOfOneSchema_eachHearsEveryTypeFromTheOther_andNothingOfItsOwn() {
        Member a = start(schema, 1);
        Member b = start(schema, 2);
        List<ClusterEvent> fromA = List.of(new ClusterEvent.Arm(11, 12, 3, 1_790_000_000_000L, 7),
                new ClusterEvent.Cancelled(11, 12), new ClusterEvent.JobChanged(12));

        fromA.forEach(a.bus()::publish);
        a.bus().publish(new ClusterEvent.Resync()); // raised locally, never sent
        Await.until(() -> "B heard " + b.received(), BOUND, () -> b.received().size() >= 3);
        // A's events are committed before B's marker (B had them), and one connection gets notifications in commit
        // order: had A been handed its own, they would come before the marker.
        b.bus().publish(new ClusterEvent.JobChanged(99));
        Await.until(() -> "A heard " + a.received(), BOUND, () -> !a.received().isEmpty());

        assertEquals(fromA, b.received());
        assertEquals(List.of(new ClusterEvent.JobChanged(99)), a.received());
    }

    @Test
    void publish_otherSchema_hearsNothing() {
        PostgresTestDatabase otherSchema = newSchema();
        Member a = start(schema, 1);
        Member b = start(schema, 2);
        Member c = start(otherSchema, 3);
        Member d = start(otherSchema, 4);
        assertNotEquals(a.channel(), c.channel());

        a.bus().publish(new ClusterEvent.JobChanged(1));
        Await.until(() -> "B heard " + b.received(), BOUND, () -> !b.received().isEmpty());
        d.bus().publish(new ClusterEvent.JobChanged(2));
        Await.until(() -> "C heard " + c.received(), BOUND, () -> !c.received().isEmpty());

        assertEquals(List.of(new ClusterEvent.JobChanged(2)), c.received());
        assertEquals(List.of(new ClusterEvent.JobChanged(1)), b.received());
    }

    @Test
    void publish_tenThousandEvents_arriveCompleteAndInOrder_inFarFewerNotifications() throws Exception {
        Member a = start(schema, 1);
        Member b = start(schema, 2);
        try (Connection spy = DriverManager.getConnection(schema.jdbcUrl());
                Statement statement = spy.createStatement()) {
            statement.execute("LISTEN " + PgClusterBus.quoteIdentifier(a.channel()));
            List<ClusterEvent> sent = new ArrayList<>();
            for (int i = 0; i < 10_000; i++) {
                ClusterEvent event = new ClusterEvent.Arm(1_000_000 + i, 77, i % 256, 1_790_000_000_000L + i, null);
                sent.add(event);
                a.bus().publish(event);
            }

            Await.until(() -> "B heard " + b.received().size(), BOUND, () -> b.received().size() >= sent.size());
            assertEquals(sent, b.received());
            PGConnection spying = spy.unwrap(PGConnection.class);
            int[] notificationsAndLines = new int[2];
            Await.until(() -> "the spy saw " + notificationsAndLines[1] + " lines", BOUND, () -> {
                try {
                    for (PGNotification n : spying.getNotifications(10)) {
                        notificationsAndLines[0]++;
                        notificationsAndLines[1] += n.getParameter().split("\n").length;
                        assertTrue(n.getParameter().length() < 8_000);
                        assertTrue(n.getParameter().startsWith("1 arm "), n.getParameter());
                    }
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
                return notificationsAndLines[1] >= sent.size();
            });
            int notifications = notificationsAndLines[0];
            System.out.println("PgClusterBusTest: 10 000 events in " + notifications + " notifications");
            // A line here is about 40 bytes, so a full payload carries about 200; 10 000 events in at most 200
            // notifications means they travelled at least 50 to a notification.
            assertTrue(notifications > 0 && notifications <= 200, "notifications " + notifications);
        }
    }

    @Test
    void publish_channelNeedingQuotes_listenAndNotifyAgree() {
        String channel = "Tw \"Odd\" Channel";
        Member a = start(schema, 1, channel);
        Member b = start(schema, 2, channel);
        a.bus().publish(new ClusterEvent.JobChanged(5));
        Await.until(() -> "B heard " + b.received(), BOUND, () -> !b.received().isEmpty());
        assertEquals(List.of(new ClusterEvent.JobChanged(5)), b.received());
    }

    @Test
    void listeningConnectionKilled_resyncIsDelivered_andLaterEventsArrive() throws SQLException {
        Member a = start(schema, 1);
        Member b = start(schema, 2);

        try (PreparedStatement kill = admin.prepareStatement("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                + " WHERE application_name = ? AND query LIKE 'LISTEN %'")) {
            kill.setString(1, a.applicationName());
            try (ResultSet rs = kill.executeQuery()) {
                assertTrue(rs.next() && rs.getBoolean(1), "A's listening backend was terminated");
            }
        }

        Await.until(() -> "A heard " + a.received(), BOUND, () -> !a.received().isEmpty());
        assertEquals(List.of(new ClusterEvent.Resync()), a.received(), "delivered once A listens again");
        b.bus().publish(new ClusterEvent.Cancelled(3, 4));
        Await.until(() -> "A heard " + a.received(), BOUND, () -> a.received().size() >= 2);
        assertEquals(List.of(new ClusterEvent.Resync(), new ClusterEvent.Cancelled(3, 4)), a.received());
    }

    @Test
    void close_stopsBothThreadsAndReturnsTheConnection() throws SQLException {
        Member a = start(schema, 1);

        a.bus().close();
        a.bus().close();

        assertEquals(0, a.pool().getHikariPoolMXBean().getActiveConnections(), "the kept connection is back");
        assertEquals(0, listening(a.applicationName()), "and it listens no more");
        assertTrue(Thread.getAllStackTraces().keySet().stream().noneMatch(
                t -> t.getName().equals("tickwheel-bus-1") || t.getName().equals("tickwheel-bus-send-1")));
        a.bus().publish(new ClusterEvent.JobChanged(1)); // dropped, no throw
        assertEquals("cannot be started once closed",
                assertThrows(IllegalStateException.class, () -> a.bus().start(e -> { })).getMessage());
    }

    @Test
    void channelOf_isTheSchemasChannel() throws SQLException {
        String current;
        try (Statement statement = admin.createStatement();
                ResultSet rs = statement.executeQuery("SELECT current_schema()")) {
            rs.next();
            current = rs.getString(1);
        }
        HikariDataSource pool = pool(schema, "channel-test");
        assertEquals("tw_bus_" + current, PgClusterBus.channelOf(pool));
    }

    // ---- fixture ----

    private PostgresTestDatabase newSchema() {
        PostgresTestDatabase db = PostgresTestDatabase.createSchema();
        schemas.add(db);
        return db;
    }

    private Member start(PostgresTestDatabase db, long session) {
        HikariDataSource pool = pool(db, "tw-bus-test-" + UUID.randomUUID());
        return start(db, session, PgClusterBus.channelOf(pool), pool);
    }

    private Member start(PostgresTestDatabase db, long session, String channel) {
        return start(db, session, channel, pool(db, "tw-bus-test-" + UUID.randomUUID()));
    }

    private Member start(PostgresTestDatabase db, long session, String channel, HikariDataSource pool) {
        PgClusterBus bus = new PgClusterBus(pool, channel, session);
        closeables.add(bus);
        List<ClusterEvent> received = new CopyOnWriteArrayList<>();
        bus.start(received::add);
        String applicationName = pool.getDataSourceProperties().getProperty("ApplicationName");
        Await.until("bus " + session + " listens on " + channel, BOUND, () -> listening(applicationName) == 1);
        return new Member(bus, pool, applicationName, channel, received);
    }

    private HikariDataSource pool(PostgresTestDatabase db, String applicationName) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.jdbcUrl());
        config.addDataSourceProperty("ApplicationName", applicationName);
        config.setMaximumPoolSize(3);
        config.setPoolName(applicationName);
        HikariDataSource pool = new HikariDataSource(config);
        closeables.add(pool);
        return pool;
    }

    /** How many backends of this pool have run LISTEN last and are idle: listening. */
    private int listening(String applicationName) {
        try (PreparedStatement ps = admin.prepareStatement("SELECT count(*) FROM pg_stat_activity"
                + " WHERE application_name = ? AND query LIKE 'LISTEN %' AND state = 'idle'")) {
            ps.setString(1, applicationName);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
