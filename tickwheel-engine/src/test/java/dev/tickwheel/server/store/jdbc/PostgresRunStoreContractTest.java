package dev.tickwheel.server.store.jdbc;

import java.sql.SQLException;

/**
 * Caller's keys, set cancels and reschedules on PostgreSQL, in a schema of their own that is dropped afterwards (and
 * that outlives the store's reopening); fails, never skips, when the server is unreachable, see
 * {@link PostgresTestDatabase}.
 */
class PostgresRunStoreContractTest extends AbstractRunStoreContractTest {

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
