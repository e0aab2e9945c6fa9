package dev.tickwheel.server.store.jdbc;

import java.sql.SQLException;

/**
 * Fencing on PostgreSQL, each test in a schema of its own; fails, never skips, when the server is unreachable. A
 * takeover is another live member taking an expired lease.
 */
class PostgresFencingStoreContractTest extends AbstractFencingStoreContractTest {

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
}
