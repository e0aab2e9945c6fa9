package dev.tickwheel.server.store.jdbc;

import java.sql.SQLException;

/**
 * Secrets at rest on PostgreSQL, in a schema of its own per test, dropped afterwards. Reads env
 * {@code TICKWHEEL_TEST_PG_URL}; fails (never skips) if the server is unreachable, see {@link PostgresTestDatabase}.
 */
class PostgresSecretsAtRestContractTest extends AbstractSecretsAtRestContractTest {

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
