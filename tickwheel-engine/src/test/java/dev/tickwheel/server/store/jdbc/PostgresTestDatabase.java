package dev.tickwheel.server.store.jdbc;

import static org.junit.jupiter.api.Assertions.fail;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;

/**
 * A throw-away schema in the test PostgreSQL database, so that parallel test runs never see each other's rows.
 *
 * <p>The server comes from env {@code TICKWHEEL_TEST_PG_URL} (default {@link #DEFAULT_URL}). An unreachable server
 * fails the test, never skips it: under {@code CI=true} because CI must test PostgreSQL, and locally with the
 * command that starts it.
 *
 * <p>Not thread-safe: confined to a test class's lifecycle methods.
 */
public final class PostgresTestDatabase {

    static final String DEFAULT_URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
    static final String START_COMMAND = "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start";

    private final String serverUrl;
    private final String schema;

    private PostgresTestDatabase(String serverUrl, String schema) {
        this.serverUrl = serverUrl;
        this.schema = schema;
    }

    /** Connects to the test server and creates a fresh schema, or fails the test saying why and what to do. */
    public static PostgresTestDatabase createSchema() {
        String env = System.getenv("TICKWHEEL_TEST_PG_URL");
        String url = env == null || env.isBlank() ? DEFAULT_URL : env;
        String schema = "tw_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16)
                .toLowerCase(Locale.ROOT);
        PostgresTestDatabase db = new PostgresTestDatabase(url, schema);
        try {
            db.execute("CREATE SCHEMA " + schema);
        } catch (SQLException e) {
            fail(unreachableMessage(url, "true".equalsIgnoreCase(System.getenv("CI")), e), e);
        }
        return db;
    }

    static String unreachableMessage(String url, boolean ci, SQLException cause) {
        String why = "PostgreSQL is unreachable at " + url + " (" + cause.getMessage() + "). ";
        if (ci) {
            return why + "CI=true, so the PostgreSQL contract tests fail rather than skip.";
        }
        return why + "Start it with `" + START_COMMAND + "`, or point TICKWHEEL_TEST_PG_URL at a server.";
    }

    /** The URL of this schema: the server URL with {@code currentSchema} set. */
    public String jdbcUrl() {
        return serverUrl + (serverUrl.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    }

    public void dropSchema() throws SQLException {
        execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }

    private void execute(String sql) throws SQLException {
        try (Connection connection = DriverManager.getConnection(serverUrl);
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
