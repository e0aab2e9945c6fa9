package dev.tickwheel.server.store.jdbc;

import java.sql.SQLException;

/** The batched store operations on PostgreSQL, in a schema of their own; fails, never skips, when unreachable. */
class PostgresBatchStoreContractTest extends AbstractBatchStoreContractTest {

    private PostgresTestDatabase database;

    @Override
    protected String createDatabase() {
        database = PostgresTestDatabase.createSchema();
        return database.jdbcUrl();
    }

    @Override
    protected void dropDatabase() throws SQLException {
        database.dropSchema();
    }
}
