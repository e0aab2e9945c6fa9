package dev.tickwheel.server.store.jdbc;

import java.util.UUID;

/** The access and audit store contract on H2 2.x, in memory (one private database per test class). */
class H2AccessStoreContractTest extends AbstractAccessStoreContractTest {

    @Override
    protected String createDatabase() {
        return "jdbc:h2:mem:tw_" + UUID.randomUUID().toString().replace("-", "");
    }

    @Override
    protected void dropDatabase() {
        // Nothing left: an in-memory H2 database disappears with its last connection.
    }
}
