package dev.tickwheel.server.api;

import dev.tickwheel.server.access.Role;

/**
 * What a route needs of its caller's token. Every route names one ({@link ApiRoute#access()}), and
 * {@code RouteAccessTest} fails for a route without an entry in its table.
 *
 * <p>Immutable.
 */
public enum RouteAccess {
    /**
     * Never a token: the console's page and files, the API's documentation, callback reports (their credential is in
     * the URL) and the demo echo.
     */
    OPEN(null, false),
    /** {@code /health} and {@code /metrics}: open by default ({@code --open-health}); else a READ token of every namespace. */
    HEALTH(Role.READ, true),
    /** A READ token (of the resource's namespace, or every namespace). */
    READ(Role.READ, false),
    /** An OPERATE token. */
    OPERATE(Role.OPERATE, false),
    /** An ADMIN token. */
    ADMIN(Role.ADMIN, false),
    /** A READ token of every namespace: server-wide resources not yet split by namespace (cluster view). */
    SERVER_READ(Role.READ, true),
    /** An OPERATE token of every namespace. */
    SERVER_OPERATE(Role.OPERATE, true),
    /** An ADMIN token of every namespace: namespaces and server-wide resources. */
    SERVER_ADMIN(Role.ADMIN, true);

    private final Role role;
    private final boolean everyNamespace;

    RouteAccess(Role role, boolean everyNamespace) {
        this.role = role;
        this.everyNamespace = everyNamespace;
    }

    /** The least role it needs, or null for none. */
    public Role role() {
        return role;
    }

    /** Whether it needs a token of every namespace. */
    public boolean everyNamespace() {
        return everyNamespace;
    }
}
