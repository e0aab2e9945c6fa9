package dev.tickwheel.server.store.jdbc;

import java.util.UUID;

/** The retention purge's store side on H2 2.x, in memory. */
class H2RetentionStoreContractTest extends AbstractRetentionStoreContractTest {

    @Override
    protected String createDatabase() {
        return "jdbc:h2:mem:tw_retention_" + UUID.randomUUID().toString().replace("-", "");
    }

    @Override
    protected void dropDatabase() {
        // An in-memory H2 database disappears with its last connection.
    }
}
