package dev.tickwheel.server.store.jdbc;

import java.util.UUID;

/** The batched store operations on H2 2.x, in memory. */
class H2BatchStoreContractTest extends AbstractBatchStoreContractTest {

    @Override
    protected String createDatabase() {
        return "jdbc:h2:mem:tw_batch_" + UUID.randomUUID().toString().replace("-", "");
    }

    @Override
    protected void dropDatabase() {
        // An in-memory H2 database disappears with its last connection.
    }
}
