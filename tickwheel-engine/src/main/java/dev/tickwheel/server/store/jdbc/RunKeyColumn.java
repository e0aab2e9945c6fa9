package dev.tickwheel.server.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Schema version 7: the caller's run key ({@code tw_instance.run_key}) and its unique index on (job_id, run_key), which
 * is what makes two runs of one job with one key one instance, however they race (the store decides, not the server).
 *
 * <p>Why Java and not a {@code .sql} file like the others: the index differs by database. On PostgreSQL it is
 * <em>partial</em> ({@code WHERE run_key IS NOT NULL}): a claim or a settle changes the indexed status, so it is never a
 * heap-only update and writes a new entry into every index of the row (see {@code V4__fewer_instance_indexes.sql});
 * a partial index gets one only for keyed rows, so the loader's and the keyless runs' rows (most of them) pay nothing
 * for it. H2 has no partial indexes; there it is a plain unique index, whose NULL keys are distinct (as on
 * PostgreSQL), so keyless rows never conflict.
 *
 * <p>Immutable; Flyway runs it once, on its own connection, in its transaction.
 */
final class RunKeyColumn extends SchemaStep {

    /** The index's name: {@link PostgresDialect} names its predicate in {@code ON CONFLICT}. */
    static final String INDEX = "tw_instance_run_key_uk";

    RunKeyColumn() {
        super("7", "run keys");
    }

    @Override
    void migrate(Connection connection, boolean postgres) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("ALTER TABLE tw_instance ADD COLUMN run_key VARCHAR(200)");
            statement.execute("CREATE UNIQUE INDEX " + INDEX + " ON tw_instance (job_id, run_key)"
                    + (postgres ? " WHERE " + InstanceSql.RUN_KEY_PREDICATE : ""));
        }
    }
}
