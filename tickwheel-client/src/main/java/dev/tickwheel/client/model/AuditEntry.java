package dev.tickwheel.client.model;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * One change the server recorded in its audit trail (refused ones too).
 *
 * <p>Immutable (the {@code changes} tree must not be changed).
 *
 * @param id        its ID; entries are listed newest first by it
 * @param at        when it was made
 * @param actor     the token's name ({@code bootstrap}: the server's {@code --token}; {@code anonymous}: a server
 *                  without tokens)
 * @param namespace the namespace acted in, or null for a server-wide action
 * @param action    the route, {@code METHOD /path/{param}} such as {@code POST /api/jobs/{id}/run}
 * @param target    what it acted on ({@code job 123}), or null
 * @param status    the HTTP status the server answered
 * @param changes   the fields given or changed (for a replace, each changed field's old and new value; secrets
 *                  masked as {@code ***}), or null
 */
public record AuditEntry(long id, Instant at, String actor, String namespace, String action, String target,
                         int status, JsonNode changes) {
}
