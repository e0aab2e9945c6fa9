package dev.tickwheel.server.store.jdbc;

import java.util.UUID;

/** The pool store contract on H2 2.x, in memory (one private database per test class). */
class H2PoolStoreContractTest extends AbstractPoolStoreContractTest {

    @Override
    protected String createDatabase() {
        // Lives while the pool holds a connection; the pool keeps a fixed number open until close().
        return "jdbc:h2:mem:tw_" + UUID.randomUUID().toString().replace("-", "");
    }

    @Override
    protected void dropDatabase() {
        // Nothing left: an in-memory H2 database disappears with its last connection.
    }
}
