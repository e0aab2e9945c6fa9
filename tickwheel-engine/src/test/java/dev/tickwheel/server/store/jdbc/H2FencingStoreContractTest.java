package dev.tickwheel.server.store.jdbc;

/**
 * Fencing on H2. A takeover there is a restarted process: the new member's join ends the old one's leases (the
 * store is single-process), and the old store object plays the process that must no longer change anything.
 */
class H2FencingStoreContractTest extends AbstractFencingStoreContractTest {

    @Override
    protected String createDatabase() {
        return H2MemberDatabases.create();
    }

    @Override
    protected void dropDatabase() {
        // An in-memory H2 database disappears with its last connection.
    }
}
