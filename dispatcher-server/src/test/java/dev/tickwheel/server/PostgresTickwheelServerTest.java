package dev.tickwheel.server;

import dev.tickwheel.server.store.jdbc.PostgresTestDatabase;
import java.sql.SQLException;

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
}
