package dev.tickwheel.bench.api;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * What the benchmark reads from and tidies on the server's PostgreSQL schema, always outside a measured window: the
 * database's version and the settings that bound commit rates, whether the run-key migration is there, the
 * ceiling's rows (deleted after each round) and a {@code VACUUM} between rounds, so that every round starts from
 * a table without the previous round's dead rows.
 *
 * <p>Thread-safe (stateless apart from the URL; each call opens its own connection).
 */
final class BenchSchema {

    private final String jdbcUrl;

    BenchSchema(String jdbcUrl) {
        this.jdbcUrl = jdbcUrl;
    }

    /** E.g. {@code PostgreSQL 15.20, synchronous_commit on, shared_buffers 128MB, max_connections 100}. */
    String describe() {
        try (Connection c = DriverManager.getConnection(jdbcUrl); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT current_setting('server_version'),"
                        + " current_setting('synchronous_commit'), current_setting('shared_buffers'),"
                        + " current_setting('max_connections'), current_setting('fsync')")) {
            rs.next();
            return "PostgreSQL " + rs.getString(1) + " (synchronous_commit " + rs.getString(2) + ", fsync "
                    + rs.getString(5) + ", shared_buffers " + rs.getString(3) + ", max_connections " + rs.getString(4)
                    + ")";
        } catch (SQLException e) {
            return "PostgreSQL (could not read its version: " + e.getMessage() + ")";
        }
    }

    /** Whether {@code tw_instance.run_key} exists (the server's schema version 7 or later). */
    boolean hasRunKeyColumn() {
        try (Connection c = DriverManager.getConnection(jdbcUrl);
                PreparedStatement s = c.prepareStatement("SELECT 1 FROM information_schema.columns"
                        + " WHERE table_schema = current_schema() AND table_name = 'tw_instance'"
                        + " AND column_name = 'run_key'");
                ResultSet rs = s.executeQuery()) {
            return rs.next();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read tw_instance's columns: " + e.getMessage(), e);
        }
    }

    /**
     * Deletes every row of {@code jobId} (the ceiling's job, which the server never armed), and its run keys where
     * they have a table of their own (schema version 9); returns how many instances.
     */
    int deleteInstancesOf(long jobId) {
        try (Connection c = DriverManager.getConnection(jdbcUrl);
                PreparedStatement s = c.prepareStatement("DELETE FROM tw_instance WHERE job_id = ?");
                PreparedStatement keys = c.prepareStatement("DELETE FROM tw_run_key WHERE job_id = ?");
                PreparedStatement keyTable = c.prepareStatement("SELECT to_regclass('tw_run_key') IS NOT NULL");
                ResultSet hasKeyTable = keyTable.executeQuery()) {
            hasKeyTable.next();
            if (hasKeyTable.getBoolean(1)) {
                keys.setLong(1, jobId);
                keys.executeUpdate();
            }
            s.setLong(1, jobId);
            return s.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot delete the ceiling's rows: " + e.getMessage(), e);
        }
    }

    /**
     * {@code ANALYZE tw_instance}, before a cancel phase: a phase that has just written a million rows leaves the
     * planner's statistics describing the table as it was (after the previous round's clean-up, nearly empty), and
     * then {@code UPDATE … WHERE id = ANY(?) AND status = 'WAITING'} is planned as a walk of every WAITING entry of
     * {@code tw_instance_status_idx} with the ids as a filter: seconds per cancel instead of an index probe. Fresh
     * statistics are what autovacuum gives a table in its steady state.
     */
    void analyze() {
        try (Connection c = DriverManager.getConnection(jdbcUrl); Statement s = c.createStatement()) {
            s.execute("ANALYZE tw_instance");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot analyze tw_instance: " + e.getMessage(), e);
        }
    }

    /** {@code VACUUM (ANALYZE) tw_instance}: the round's dead rows go, the planner's statistics are fresh. */
    void vacuum() {
        try (Connection c = DriverManager.getConnection(jdbcUrl); Statement s = c.createStatement()) {
            s.execute("VACUUM (ANALYZE) tw_instance");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot vacuum tw_instance: " + e.getMessage(), e);
        }
    }
}
