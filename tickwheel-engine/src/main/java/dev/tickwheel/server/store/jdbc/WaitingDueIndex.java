package dev.tickwheel.server.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

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
final class WaitingDueIndex extends SchemaStep {

    static final String INDEX = "tw_instance_waiting_due_idx";

    WaitingDueIndex() {
        super("8", "waiting instances by due time");
    }

    @Override
    void migrate(Connection connection, boolean postgres) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(postgres
                    ? "CREATE INDEX " + INDEX + " ON tw_instance (expected_trigger_time_ms, id)"
                            + " WHERE status = 'WAITING'"
                    : "CREATE INDEX " + INDEX + " ON tw_instance (status, expected_trigger_time_ms, id)");
        }
    }
}
