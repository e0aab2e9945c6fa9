package dev.tickwheel.example.reminders;

import dev.tickwheel.server.store.jdbc.PostgresTestDatabase;
import java.sql.SQLException;

/**
 * A throw-away PostgreSQL schema for one test class's application contexts, dropped when they close. Fails (never
 * skips) when the server is unreachable: {@link PostgresTestDatabase}.
 */
final class TestSchema {

    private final PostgresTestDatabase database = PostgresTestDatabase.createSchema();

    /** The schema's JDBC URL, for {@code spring.datasource.url}. */
    String jdbcUrl() {
        return database.jdbcUrl();
    }

    void drop() {
        try {
            database.dropSchema();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot drop the test schema", e);
        }
    }
}
