package dev.tickwheel.server.store.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.Await;
import dev.tickwheel.server.store.PoolStore.Deletion;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The pool store contract on PostgreSQL, in a schema of its own that is dropped afterwards, and a delete that races a
 * job naming the pool. Reads env {@code TICKWHEEL_TEST_PG_URL}; fails (never skips) if the server is unreachable, see
 * {@link PostgresTestDatabase}.
 *
 * <p>The race is PostgreSQL's alone: there a job's foreign-key check locks the pool's row, and the delete waits for it.
 * H2 takes no such lock: a delete while a job names the pool in a transaction not yet committed goes through.
 */
class PostgresPoolStoreContractTest extends AbstractPoolStoreContractTest {

    private static final Duration BOUND = Duration.ofSeconds(20);

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

    // A job names the pool in a transaction not yet committed: the delete's check cannot see it, so the delete goes on
    // and waits for the job's key lock on the pool's row. Once the job commits, the foreign key refuses the delete,
    // which must answer IN_USE (nothing deleted), not fail as a store error.
    @Test
    void delete_racingAJobThatNamesThePool_inUse_notAStoreFailure() throws Exception {
        assertTrue(pools.insert(pool("contested", 1, null)));
        long job = insertJob();
        try (Connection naming = stores.dataSource().getConnection()) {
            naming.setAutoCommit(false);
            namePool(naming, job, "contested");
            int namingPid = backendPid(naming);

            CompletableFuture<Deletion> deletion = CompletableFuture.supplyAsync(() -> pools.delete("contested"));
            Await.until("the delete waits for the lock of the job's transaction", BOUND,
                    () -> waitingFor(namingPid) == 1);
            naming.commit();

            assertEquals(Deletion.IN_USE, deletion.get(BOUND.toSeconds(), TimeUnit.SECONDS));
        }
        assertTrue(pools.get("contested").isPresent(), "nothing deleted");
    }

    private static int backendPid(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** How many sessions wait for a lock that session {@code pid} holds. */
    private int waitingFor(int pid) {
        try (Connection connection = stores.dataSource().getConnection();
                PreparedStatement ps = connection.prepareStatement(
                        "SELECT count(*) FROM pg_stat_activity WHERE ? = ANY(pg_blocking_pids(pid))")) {
            ps.setInt(1, pid);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the lock waits of session " + pid, e);
        }
    }
}
