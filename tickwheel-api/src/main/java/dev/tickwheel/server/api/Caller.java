package dev.tickwheel.server.api;

import dev.tickwheel.server.access.Namespaces;
import dev.tickwheel.server.access.Role;

/**
 * Who is calling: the token's name (never its secret), the one namespace it may act in (null: every one) and its
 * role.
 *
 * <p>Immutable.
 */
public record Caller(String name, String namespace, Role role) {

    /** The name of the server's {@code --token} (the bootstrap admin token) in the audit trail. */
    public static final String BOOTSTRAP = "bootstrap";
    /** A caller of a server without tokens, which is open to whoever reaches it (loopback only). */
    static final Caller ANONYMOUS = new Caller("anonymous", null, Role.ADMIN);
    /** The caller of an open route. */
    static final Caller OPEN = new Caller("open", null, Role.READ);

    /** True if it may act in {@code namespaceName}. */
    boolean reaches(String namespaceName) {
        return namespace == null || namespace.equals(namespaceName);
    }

    /**
     * The namespace a new resource goes to: the one asked for, else the caller's, else the default.
     *
     * @throws ApiException 404 if the caller may not act in the one asked for (it is not told whether it exists)
     */
    String namespaceFor(String requested) {
        if (requested == null) {
            return namespace == null ? Namespaces.DEFAULT : namespace;
        }
        if (!reaches(requested)) {
            throw ApiException.notFound("namespace " + ApiException.quoted(requested) + " does not exist");
        }
        return requested;
    }
}
