package dev.tickwheel.bench.ceiling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.bench.e2e.BenchDatabase;
import dev.tickwheel.bench.webhook.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Runs the ceiling harness at a tiny size ({@link CeilingSettings#tiny()}) on a real H2 file database and on the test
 * PostgreSQL (which must be reachable: {@link TestPostgres} fails rather than skips), so that CI catches a broken
 * harness or a statement the engine changed under it. The rates are not asserted; what the run wrote is: every
 * phase's instances created, claimed once and SUCCEEDED.
 */
class StoreCeilingSmokeTest {

    private static final int PHASES = 4;

    @Test
    void run_tinyOnH2_takesEveryInstanceToSucceeded() throws SQLException {
        try (BenchDatabase database = BenchDatabase.h2()) {
            runAndCheck(database);
        }
    }

    @Test
    void run_tinyOnPostgres_takesEveryInstanceToSucceeded() throws SQLException {
        try (BenchDatabase database = TestPostgres.schema()) {
            runAndCheck(database);
        }
    }

    private static void runAndCheck(BenchDatabase database) throws SQLException {
        CeilingSettings tiny = CeilingSettings.tiny();
        CeilingResult result = new CeilingRun(tiny, Duration.ofMinutes(2)).run(database);

        System.out.println(database + ": " + result.toMap());
        assertEquals(tiny.instances(), result.instances());
        CeilingResult.MEASURES.forEach((name, measure) ->
                assertTrue(measure.applyAsDouble(result) > 0, name + " in " + result.toMap()));
        Map<String, Long> rows = rowsByStatusAndAttempt(database);
        assertEquals(Map.of("SUCCEEDED/1", (long) PHASES * tiny.instances()), rows);
    }

    private static Map<String, Long> rowsByStatusAndAttempt(BenchDatabase database) throws SQLException {
        Map<String, Long> rows = new HashMap<>();
        try (Connection connection = java.sql.DriverManager.getConnection(database.jdbcUrl());
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT status, attempt, COUNT(*) FROM tw_instance"
                        + " GROUP BY status, attempt")) {
            while (rs.next()) {
                rows.put(rs.getString(1) + "/" + rs.getInt(2), rs.getLong(3));
            }
        }
        return rows;
    }
}
