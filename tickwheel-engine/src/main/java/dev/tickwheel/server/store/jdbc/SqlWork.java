package dev.tickwheel.server.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Work done with one connection, inside whatever transaction {@link TransactionRunner} set up.
 *
 * @param <T> the result type
 */
@FunctionalInterface
interface SqlWork<T> {

    T run(Connection connection) throws SQLException;
}
