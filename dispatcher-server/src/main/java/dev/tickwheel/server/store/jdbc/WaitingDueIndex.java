package dev.tickwheel.server.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import org.flywaydb.core.api.MigrationVersion;
import org.flywaydb.core.api.migration.Context;
import org.flywaydb.core.api.migration.JavaMigration;

/**
 * Schema version 8: an index of the waiting instances by due time ({@code tw_instance_waiting_due_idx}), which the
 * walks over what falls due serve: arming the instances that come within the horizon, recovering a shard, sweeping for
 * overdue ones ({@link InstanceSql#SELECT_WAITING_DUE}). Without it each walk read every waiting row of the table,
 * in id order, whatever it was due: a cost that grew with the backlog, paid every loader period.
 *
 * <p>Why Java: the index differs by database. On PostgreSQL it is <em>partial</em> ({@code WHERE status =
 * 'WAITING'}), so it holds only the waiting rows, and a claim or a settle (which moves a row out of WAITING) writes no
 * entry into it. H2 has no partial indexes; there it leads with the status.
 *
 * <p>Immutable; Flyway runs it once, on its own connection, in its transaction.
 */
final class WaitingDueIndex implements JavaMigration {

    static final String INDEX = "tw_instance_waiting_due_idx";

    @Override
    public MigrationVersion getVersion() {
        return MigrationVersion.fromVersion("8");
    }

    @Override
    public String getDescription() {
        return "waiting instances by due time";
    }

    @Override
    public Integer getChecksum() {
        return null;
    }

    @Override
    public boolean canExecuteInTransaction() {
        return true;
    }

    @Override
    public void migrate(Context context) throws SQLException {
        Connection connection = context.getConnection();
        boolean postgres = connection.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT)
                .contains("postgres");
        try (Statement statement = connection.createStatement()) {
            statement.execute(postgres
                    ? "CREATE INDEX " + INDEX + " ON tw_instance (expected_trigger_time_ms, id)"
                            + " WHERE status = 'WAITING'"
                    : "CREATE INDEX " + INDEX + " ON tw_instance (status, expected_trigger_time_ms, id)");
        }
    }
}
