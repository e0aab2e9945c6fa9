package dev.tickwheel.server.store.jdbc;

import java.sql.SQLException;

/** The retention purge's store side on PostgreSQL, in a schema of its own; fails, never skips, when unreachable. */
class PostgresRetentionStoreContractTest extends AbstractRetentionStoreContractTest {

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
