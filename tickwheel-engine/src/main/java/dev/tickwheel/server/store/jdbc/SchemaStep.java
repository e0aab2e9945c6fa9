package dev.tickwheel.server.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;
import org.flywaydb.core.api.MigrationVersion;
import org.flywaydb.core.api.migration.Context;
import org.flywaydb.core.api.migration.JavaMigration;

/**
 * A schema migration written in Java because it differs by database or computes what SQL cannot: its version and
 * description, no checksum, run by Flyway once, in its transaction, on its own connection, told which database it
 * is on.
 *
 * <p>Immutable.
 */
abstract class SchemaStep implements JavaMigration {

    private final MigrationVersion version;
    private final String description;

    SchemaStep(String version, String description) {
        this.version = MigrationVersion.fromVersion(version);
        this.description = description;
    }

    /** Changes the schema on {@code connection}, inside Flyway's transaction. */
    abstract void migrate(Connection connection, boolean postgres) throws SQLException;

    @Override
    public final MigrationVersion getVersion() {
        return version;
    }

    @Override
    public final String getDescription() {
        return description;
    }

    @Override
    public final Integer getChecksum() {
        return null;
    }

    @Override
    public final boolean canExecuteInTransaction() {
        return true;
    }

    @Override
    public final void migrate(Context context) throws SQLException {
        Connection connection = context.getConnection();
        migrate(connection, connection.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT)
                .contains("postgres"));
    }
}
