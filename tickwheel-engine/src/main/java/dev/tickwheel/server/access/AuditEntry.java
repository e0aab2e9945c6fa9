package dev.tickwheel.server.access;

import java.time.Instant;
import java.util.Objects;

/**
 * One change made through the API or the console.
 *
 * <p>Immutable.
 *
 * @param id        a Snowflake id: the entries' order is their time order
 * @param actor     the token's name ({@code bootstrap} for the server's {@code --token}, {@code anonymous} on a server
 *                  without tokens); never a secret
 * @param namespace the namespace acted in, or null for a server-wide action (a namespace or an all-namespace token)
 * @param action    what was done: the route, {@code METHOD /path/{param}}
 * @param target    what it was done to ({@code job 123}, {@code instance 456}, {@code token ci}), or null
 * @param status    the HTTP status answered
 * @param changes   the fields given or changed, as JSON with secrets masked, or null
 */
public record AuditEntry(long id, Instant at, String actor, String namespace, String action, String target,
                         int status, String changes) {

    public AuditEntry {
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(actor, "actor");
        Objects.requireNonNull(action, "action");
    }
}
