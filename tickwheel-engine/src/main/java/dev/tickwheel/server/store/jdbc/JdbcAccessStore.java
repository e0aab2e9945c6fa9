package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.access.ApiToken;
import dev.tickwheel.server.access.Namespace;
import dev.tickwheel.server.access.Role;
import dev.tickwheel.server.store.AccessStore;
import dev.tickwheel.server.store.StoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@link AccessStore} over {@code tw_namespace}, {@code tw_api_token} and {@code tw_job_namespace} (schema 18).
 *
 * <p>Thread-safe (stateless apart from the runner).
 */
final class JdbcAccessStore implements AccessStore {

    private static final String TOKEN_COLUMNS = "id, name, namespace, role, created_at_ms, expires_at_ms,"
            + " revoked_at_ms, last_used_at_ms";

    private final TransactionRunner runner;

    JdbcAccessStore(TransactionRunner runner) {
        this.runner = runner;
    }

    @Override
    public boolean insertNamespace(Namespace namespace) {
        return insertUnlessTaken("insert namespace '" + namespace.name() + "'", connection -> {
            try (PreparedStatement ps = connection.prepareStatement(
                    "INSERT INTO tw_namespace (name, created_at_ms) VALUES (?, ?)")) {
                ps.setString(1, namespace.name());
                ps.setLong(2, namespace.createdAt().toEpochMilli());
                ps.executeUpdate();
            }
            return true;
        });
    }

    @Override
    public Optional<Namespace> namespace(String name) {
        return runner.autoCommit("read namespace '" + name + "'", connection -> {
            try (PreparedStatement ps = connection.prepareStatement(
                    "SELECT name, created_at_ms FROM tw_namespace WHERE name = ?")) {
                ps.setString(1, name);
                List<Namespace> found = readNamespaces(ps);
                return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
            }
        });
    }

    @Override
    public List<Namespace> namespaces() {
        return runner.autoCommit("list namespaces", connection -> {
            try (PreparedStatement ps = connection.prepareStatement(
                    "SELECT name, created_at_ms FROM tw_namespace ORDER BY name")) {
                return readNamespaces(ps);
            }
        });
    }

    private static List<Namespace> readNamespaces(PreparedStatement ps) throws SQLException {
        List<Namespace> all = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                all.add(new Namespace(rs.getString(1), Instant.ofEpochMilli(rs.getLong(2))));
            }
        }
        return all;
    }

    @Override
    public boolean insertToken(ApiToken token, String secretHash) {
        return insertUnlessTaken("insert token '" + token.name() + "'", connection -> {
            try (PreparedStatement exists = connection.prepareStatement("SELECT 1 FROM tw_api_token WHERE name = ?")) {
                exists.setString(1, token.name());
                try (ResultSet rs = exists.executeQuery()) {
                    if (rs.next()) {
                        return false;
                    }
                }
            }
            try (PreparedStatement ps = connection.prepareStatement("INSERT INTO tw_api_token (" + TOKEN_COLUMNS
                    + ", secret_sha256) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                ps.setLong(1, token.id());
                ps.setString(2, token.name());
                JdbcValues.setString(ps, 3, token.namespace());
                ps.setString(4, token.role().name());
                ps.setLong(5, token.createdAt().toEpochMilli());
                JdbcValues.setInstant(ps, 6, token.expiresAt());
                JdbcValues.setInstant(ps, 7, token.revokedAt());
                JdbcValues.setInstant(ps, 8, token.lastUsedAt());
                ps.setString(9, secretHash);
                ps.executeUpdate();
            }
            return true;
        });
    }

    /** Runs an insert; a unique-key violation (a racing insert of the same name) is a false, not a failure. */
    private boolean insertUnlessTaken(String operation, SqlWork<Boolean> insert) {
        try {
            return runner.inTransaction(operation, insert);
        } catch (StoreException e) {
            if (DuplicateIds.isUniqueViolation(e.getCause())) {
                return false;
            }
            throw e;
        }
    }

    @Override
    public Optional<ApiToken> tokenByHash(String secretHash) {
        return oneToken("find token by secret", "secret_sha256 = ?", ps -> ps.setString(1, secretHash));
    }

    @Override
    public Optional<ApiToken> token(long id) {
        return oneToken("read token " + id, "id = ?", ps -> ps.setLong(1, id));
    }

    private Optional<ApiToken> oneToken(String operation, String condition, Binder binder) {
        return runner.autoCommit(operation, connection -> {
            try (PreparedStatement ps = connection.prepareStatement("SELECT " + TOKEN_COLUMNS
                    + " FROM tw_api_token WHERE " + condition)) {
                binder.bind(ps);
                List<ApiToken> found = readTokens(ps);
                return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
            }
        });
    }

    @Override
    public List<ApiToken> tokens(String namespace) {
        return runner.autoCommit("list tokens", connection -> {
            try (PreparedStatement ps = connection.prepareStatement("SELECT " + TOKEN_COLUMNS + " FROM tw_api_token"
                    + (namespace == null ? "" : " WHERE namespace = ?") + " ORDER BY name")) {
                if (namespace != null) {
                    ps.setString(1, namespace);
                }
                return readTokens(ps);
            }
        });
    }

    private static List<ApiToken> readTokens(PreparedStatement ps) throws SQLException {
        List<ApiToken> all = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                all.add(new ApiToken(rs.getLong("id"), rs.getString("name"), rs.getString("namespace"),
                        Role.valueOf(rs.getString("role")), JdbcValues.getInstant(rs, "created_at_ms"),
                        JdbcValues.getInstant(rs, "expires_at_ms"), JdbcValues.getInstant(rs, "revoked_at_ms"),
                        JdbcValues.getInstant(rs, "last_used_at_ms")));
            }
        }
        return all;
    }

    @Override
    public boolean revokeToken(long id, Instant at) {
        return runner.inTransaction("revoke token " + id, connection -> {
            try (PreparedStatement ps = connection.prepareStatement(
                    "UPDATE tw_api_token SET revoked_at_ms = ? WHERE id = ? AND revoked_at_ms IS NULL")) {
                ps.setLong(1, at.toEpochMilli());
                ps.setLong(2, id);
                return ps.executeUpdate() == 1;
            }
        });
    }

    @Override
    public void touchToken(long id, Instant at) {
        runner.inTransaction("record use of token " + id, connection -> {
            try (PreparedStatement ps = connection.prepareStatement(
                    "UPDATE tw_api_token SET last_used_at_ms = ? WHERE id = ?")) {
                ps.setLong(1, at.toEpochMilli());
                ps.setLong(2, id);
                ps.executeUpdate();
            }
            return null;
        });
    }

    @Override
    public boolean anyToken() {
        return runner.autoCommit("any token", connection -> {
            try (PreparedStatement ps = connection.prepareStatement("SELECT 1 FROM tw_api_token LIMIT 1");
                    ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        });
    }

    @Override
    public Map<Long, String> namespacesOfJobs(Collection<Long> jobIds) {
        Map<Long, String> found = new HashMap<>();
        if (jobIds.isEmpty()) {
            return found;
        }
        runner.autoCommit("read namespaces of " + jobIds.size() + " job(s)", connection -> {
            try (PreparedStatement ps = connection.prepareStatement(
                    "SELECT job_id, namespace FROM tw_job_namespace WHERE job_id = ANY(?)")) {
                ps.setArray(1, connection.createArrayOf("BIGINT", jobIds.toArray(new Long[0])));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        found.put(rs.getLong(1), rs.getString(2));
                    }
                }
            }
            return null;
        });
        return found;
    }

    /** Inserts the namespace row of each job, in the jobs' insert transaction. */
    static void insertJobNamespaces(Connection connection, Collection<Long> jobIds, String namespace)
            throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(
                "INSERT INTO tw_job_namespace (job_id, namespace) VALUES (?, ?)")) {
            for (long id : jobIds) {
                ps.setLong(1, id);
                ps.setString(2, namespace);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /** Binds a statement's parameters. */
    @FunctionalInterface
    private interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }
}
