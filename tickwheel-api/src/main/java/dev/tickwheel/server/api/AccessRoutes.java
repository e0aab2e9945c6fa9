package dev.tickwheel.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tickwheel.server.AccessService;
import dev.tickwheel.server.AuditService;
import dev.tickwheel.server.access.ApiToken;
import dev.tickwheel.server.access.AuditEntry;
import dev.tickwheel.server.access.AuditFilter;
import dev.tickwheel.server.access.Namespace;
import dev.tickwheel.server.access.Namespaces;
import dev.tickwheel.server.access.Role;
import dev.tickwheel.server.api.dto.AuditEntryResponse;
import dev.tickwheel.server.api.dto.CallerResponse;
import dev.tickwheel.server.api.dto.NamespaceRequest;
import dev.tickwheel.server.api.dto.NamespaceResponse;
import dev.tickwheel.server.api.dto.PageResponse;
import dev.tickwheel.server.api.dto.TokenRequest;
import dev.tickwheel.server.api.dto.TokenResponse;
import dev.tickwheel.server.store.Page;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * Handlers of {@code /api/namespaces}, {@code /api/tokens}, {@code /api/whoami} and {@code /api/audit}.
 *
 * <p>A token of one namespace sees and manages only that namespace's tokens and audit entries, and may create tokens
 * for its own namespace only; another namespace's token is answered 404 like one that does not exist.
 *
 * <p>Thread-safe (immutable; the services are thread-safe).
 */
final class AccessRoutes {

    private final AccessService access;
    private final AuditService audit;
    private final JsonBodyReader bodies;
    private final ObjectMapper json;
    private final QueryParams query = new QueryParams();

    AccessRoutes(AccessService access, AuditService audit, JsonBodyReader bodies, ObjectMapper json) {
        this.access = access;
        this.audit = audit;
        this.bodies = bodies;
        this.json = json;
    }

    void createNamespace(ApiExchange ctx) {
        NamespaceRequest request = bodies.read(ctx, NamespaceRequest.class, true);
        if (request.name() == null) {
            throw ApiException.missingField("name");
        }
        String problem = Namespaces.problem(request.name());
        if (problem != null) {
            throw ApiException.invalidField("name", request.name(), problem);
        }
        if (!access.createNamespace(request.name())) {
            throw new ApiException(409, "name_taken", "namespace " + ApiException.quoted(request.name())
                    + " exists", "name");
        }
        Namespace created = access.namespace(request.name()).orElseThrow();
        CallerExchange.changedIn(ctx, created.name());
        ctx.status(201).header("Location", "/api/namespaces/" + created.name())
                .json(new NamespaceResponse(created.name(), created.createdAt()));
    }

    /** Every namespace for a caller of all; a caller of one sees its own. */
    void listNamespaces(ApiExchange ctx) {
        Caller caller = CallerExchange.caller(ctx);
        List<NamespaceResponse> shown = access.namespaces().stream().filter(n -> caller.reaches(n.name()))
                .map(n -> new NamespaceResponse(n.name(), n.createdAt())).toList();
        ctx.json(new PageResponse<>(shown, null));
    }

    void createToken(ApiExchange ctx) {
        Caller caller = CallerExchange.caller(ctx);
        TokenRequest request = bodies.read(ctx, TokenRequest.class, true);
        if (request.name() == null) {
            throw ApiException.missingField("name");
        }
        if (request.name().isBlank() || request.name().length() > ApiToken.MAX_NAME_LENGTH) {
            throw ApiException.invalidField("name", request.name(), "must be 1.." + ApiToken.MAX_NAME_LENGTH
                    + " characters and not blank");
        }
        if (request.role() == null) {
            throw ApiException.missingField("role");
        }
        Role role;
        try {
            role = Role.valueOf(request.role().trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw ApiException.invalidField("role", request.role(), "must be READ, OPERATE or ADMIN");
        }
        String namespace = request.namespace();
        if (namespace != null) {
            String problem = Namespaces.problem(namespace);
            if (problem != null) {
                throw ApiException.invalidField("namespace", namespace, problem);
            }
            if (!caller.reaches(namespace)) {
                throw ApiException.notFound("namespace " + ApiException.quoted(namespace) + " does not exist");
            }
        } else if (caller.namespace() != null) {
            throw new ApiException(403, "forbidden", "token " + ApiException.quoted(caller.name()) + " is of"
                    + " namespace " + ApiException.quoted(caller.namespace()) + " and cannot create a token of every"
                    + " namespace: give \"namespace\": " + ApiException.quoted(caller.namespace()), "namespace");
        }
        if (request.expiresAt() != null && !request.expiresAt().isAfter(Instant.now())) {
            throw ApiException.invalidField("expiresAt", request.expiresAt().toString(), "must be in the future");
        }
        AccessService.Result result = access.createToken(request.name(), namespace, role, request.expiresAt());
        switch (result.outcome()) {
            case NAME_TAKEN -> throw new ApiException(409, "name_taken", "a token named "
                    + ApiException.quoted(request.name()) + " exists", "name");
            case NO_SUCH_NAMESPACE -> throw ApiException.badField("invalid_field", "namespace", "namespace "
                    + ApiException.quoted(namespace) + " does not exist; create it with POST /api/namespaces");
            case CREATED -> { }
        }
        ApiToken token = result.created().token();
        CallerExchange.changedIn(ctx, token.namespace());
        ctx.status(201).header("Location", "/api/tokens/" + token.id())
                .json(view(token, result.created().secret()));
    }

    void listTokens(ApiExchange ctx) {
        Caller caller = CallerExchange.caller(ctx);
        ctx.json(new PageResponse<>(access.tokens(caller.namespace()).stream().map(t -> view(t, null)).toList(),
                null));
    }

    void getToken(ApiExchange ctx) {
        ctx.json(view(reachableToken(ctx), null));
    }

    /** Revokes the token (it stays listed, with {@code revokedAt}); 204, also when it was revoked already. */
    void revokeToken(ApiExchange ctx) {
        ApiToken token = reachableToken(ctx);
        CallerExchange.changedIn(ctx, token.namespace());
        access.revokeToken(token.id());
        ctx.status(204);
    }

    private ApiToken reachableToken(ApiExchange ctx) {
        long id = RequestIds.pathId(ctx.pathParam("id"));
        Caller caller = CallerExchange.caller(ctx);
        return access.token(id)
                .filter(t -> caller.namespace() == null || caller.namespace().equals(t.namespace()))
                .orElseThrow(() -> ApiException.notFound("token " + id + " does not exist"));
    }

    void whoami(ApiExchange ctx) {
        Caller caller = CallerExchange.caller(ctx);
        ctx.json(new CallerResponse(caller.name(), caller.namespace(), caller.role().name()));
    }

    /**
     * Audit entries newest first, filtered by {@code actor}, {@code namespace}, {@code action} (contains),
     * {@code target}, {@code from} and {@code to}; a caller of one namespace sees that namespace's entries.
     */
    void audit(ApiExchange ctx) {
        Caller caller = CallerExchange.caller(ctx);
        String namespace = ctx.queryParam("namespace");
        if (namespace != null && Namespaces.problem(namespace) != null) {
            throw ApiException.invalidParameter("namespace", Namespaces.problem(namespace));
        }
        if (caller.namespace() != null) {
            if (namespace != null && !caller.reaches(namespace)) {
                throw ApiException.notFound("namespace " + ApiException.quoted(namespace) + " does not exist");
            }
            namespace = caller.namespace();
        }
        Instant from = query.instant(ctx, "from");
        Instant to = query.instant(ctx, "to");
        if (from != null && to != null && from.isAfter(to)) {
            throw ApiException.invalidParameter("from", "must not be after 'to'");
        }
        AuditFilter filter = new AuditFilter(query.text(ctx, "actor", ApiToken.MAX_NAME_LENGTH), namespace,
                query.text(ctx, "action", 100), query.text(ctx, "target", 300), from, to);
        Long cursor = PageCursors.decodeInstance(ctx.queryParam("cursor"));
        Page<AuditEntry, Long> page = audit.list(filter, cursor, query.limit(ctx));
        ctx.json(new PageResponse<>(page.items().stream().map(this::view).toList(),
                page.nextCursor().map(PageCursors::encodeInstance).orElse(null)));
    }

    private AuditEntryResponse view(AuditEntry entry) {
        JsonNode changes = null;
        if (entry.changes() != null) {
            try {
                changes = json.readTree(entry.changes());
            } catch (IOException e) {
                changes = json.getNodeFactory().textNode(entry.changes());
            }
        }
        return new AuditEntryResponse(Long.toString(entry.id()), entry.at(), entry.actor(), entry.namespace(),
                entry.action(), entry.target(), entry.status(), changes);
    }

    private static TokenResponse view(ApiToken token, String secret) {
        return new TokenResponse(Long.toString(token.id()), token.name(), token.namespace(), token.role().name(),
                token.createdAt(), token.expiresAt(), token.revokedAt(), token.lastUsedAt(),
                token.activeAt(Instant.now()), secret);
    }
}
