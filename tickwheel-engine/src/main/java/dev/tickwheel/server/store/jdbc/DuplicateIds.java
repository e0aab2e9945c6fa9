package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.store.DuplicateIdException;
import dev.tickwheel.server.store.StoreException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Turns a unique-key violation on an insert into a {@link DuplicateIdException} that names the id already taken.
 *
 * <p>The failed transaction cannot be asked which row collided (PostgreSQL aborts it), so after the rollback this
 * looks the candidate ids up in a fresh statement.
 *
 * <p>Thread-safe: stateless apart from the runner it queries through.
 */
final class DuplicateIds {

    private final TransactionRunner runner;
    private final String kind;
    private final String selectExistingIdsSql;

    DuplicateIds(TransactionRunner runner, String kind, String selectExistingIdsSql) {
        this.runner = runner;
        this.kind = kind;
        this.selectExistingIdsSql = selectExistingIdsSql;
    }

    /** Fails if {@code ids} names the same id twice, before anything is written. */
    void checkDistinct(List<Long> ids) {
        Set<Long> seen = new HashSet<>();
        for (Long id : ids) {
            if (!seen.add(id)) {
                throw new IllegalArgumentException(kind + " id appears twice in one batch: " + id);
            }
        }
    }

    /**
     * Rethrows {@code failure} as a {@link DuplicateIdException} if it was caused by a unique-key violation and
     * one of {@code candidateIds} is stored; otherwise returns it unchanged for the caller to throw.
     */
    RuntimeException translate(StoreException failure, List<Long> candidateIds) {
        if (!isUniqueViolation(failure.getCause())) {
            return failure;
        }
        List<Long> taken = existing(candidateIds);
        if (taken.isEmpty()) {
            return failure;
        }
        return new DuplicateIdException(kind, taken.get(0), failure);
    }

    private List<Long> existing(List<Long> ids) {
        return runner.autoCommit("find existing " + kind + " ids", connection -> {
            try (PreparedStatement ps = connection.prepareStatement(selectExistingIdsSql)) {
                ps.setArray(1, connection.createArrayOf("bigint", ids.toArray(new Long[0])));
                List<Long> found = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        found.add(rs.getLong(1));
                    }
                }
                found.sort(null);
                return found;
            }
        });
    }

    static boolean isUniqueViolation(Throwable failure) {
        return SqlStates.carries(failure, SqlStates.UNIQUE_VIOLATION);
    }
}
