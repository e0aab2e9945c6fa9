package dev.tickwheel.bench.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.Locale;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * A throw-away store for one benchmark run: an H2 file database in a fresh temporary directory, or a fresh schema in
 * a PostgreSQL database (selected with {@code currentSchema=}). {@link #close()} deletes the directory or drops the
 * schema.
 *
 * <p>Not thread-safe: confined to the run's main thread.
 */
public final class BenchDatabase implements AutoCloseable {

    /** The PostgreSQL server used unless {@code --pg-url} says otherwise. */
    public static final String DEFAULT_PG_URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

    private final String jdbcUrl;
    private final String description;
    private final Path h2Dir;
    private final String pgServerUrl;
    private final String pgSchema;

    private BenchDatabase(String jdbcUrl, String description, Path h2Dir, String pgServerUrl, String pgSchema) {
        this.jdbcUrl = jdbcUrl;
        this.description = description;
        this.h2Dir = h2Dir;
        this.pgServerUrl = pgServerUrl;
        this.pgSchema = pgSchema;
    }

    /** An H2 file database (the embedded default store) under a new temporary directory. */
    public static BenchDatabase h2() {
        try {
            Path dir = Files.createTempDirectory("tickwheel-e2e-");
            String url = "jdbc:h2:file:" + dir.resolve("tw").toAbsolutePath() + ";AUTO_SERVER=FALSE";
            return new BenchDatabase(url, "H2 file " + dir, dir, null, null);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary directory for H2", e);
        }
    }

    /** A fresh schema on the PostgreSQL server at {@code serverUrl}. */
    public static BenchDatabase postgres(String serverUrl) {
        String schema = "tw_e2e_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12)
                .toLowerCase(Locale.ROOT);
        execute(serverUrl, "CREATE SCHEMA " + schema);
        String url = serverUrl + (serverUrl.contains("?") ? "&" : "?") + "currentSchema=" + schema;
        return new BenchDatabase(url, "PostgreSQL schema " + schema, null, serverUrl, schema);
    }

    public String jdbcUrl() {
        return jdbcUrl;
    }

    /** The PostgreSQL schema of this store, or null for H2 (e.g. to read its tables' statistics). */
    public String pgSchema() {
        return pgSchema;
    }

    /**
     * Ends PostgreSQL's current checkpoint cycle now (a no-op on H2), so that a measured phase that follows does not
     * share the machine with a checkpoint the warm-ups' WAL started. With the default {@code max_wal_size} the
     * warm-ups start one every 8-14 s (the server's log), at a different moment in each run.
     */
    public void checkpoint() {
        if (pgSchema != null) {
            execute(pgServerUrl, "CHECKPOINT");
        }
    }

    @Override
    public String toString() {
        return description;
    }

    @Override
    public void close() {
        if (pgSchema != null) {
            execute(pgServerUrl, "DROP SCHEMA IF EXISTS " + pgSchema + " CASCADE");
        }
        if (h2Dir != null) {
            try (Stream<Path> files = Files.walk(h2Dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot delete " + h2Dir, e);
            }
        }
    }

    private static void execute(String url, String sql) {
        try (Connection connection = DriverManager.getConnection(url);
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot run '" + sql + "' on " + url + ": " + e.getMessage(), e);
        }
    }
}
