package dev.tickwheel.server.api.dto;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * One audit entry as the API shows it.
 *
 * <p>Immutable.
 *
 * @param id        the entry ID as a decimal string (entries are listed newest first by it)
 * @param actor     the token's name ({@code bootstrap}: the server's {@code --token}; {@code anonymous}: a server
 *                  without tokens)
 * @param namespace the namespace acted in, or null for a server-wide action
 * @param action    the route: {@code METHOD /path/{param}}
 * @param target    what it acted on ({@code job 123}), or null
 * @param status    the HTTP status answered
 * @param changes   the fields given or changed (secrets masked as {@code ***}), or null
 */
public record AuditEntryResponse(String id, Instant at, String actor, String namespace, String action, String target,
                                 int status, JsonNode changes) {
}
