package dev.tickwheel.server.store.jdbc;

import java.util.UUID;

/**
 * H2 databases for member tests: a named in-memory database per test, which every member opened on its URL in this
 * JVM shares, and which disappears with its last connection (the members' pools hold theirs until closed).
 *
 * <p>Stateless; thread-safe.
 */
final class H2MemberDatabases {

    private H2MemberDatabases() {
    }

    static String create() {
        return "jdbc:h2:mem:tw_members_" + UUID.randomUUID().toString().replace("-", "");
    }
}
