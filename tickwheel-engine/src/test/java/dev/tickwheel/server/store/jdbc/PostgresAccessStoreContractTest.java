package dev.tickwheel.server.store.jdbc;

import java.sql.SQLException;

/**
 * The access and audit store contract on PostgreSQL, in a schema of its own that is dropped afterwards. Fails (never
 * skips) if the server is unreachable, see {@link PostgresTestDatabase}.
 */
class PostgresAccessStoreContractTest extends AbstractAccessStoreContractTest {

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
