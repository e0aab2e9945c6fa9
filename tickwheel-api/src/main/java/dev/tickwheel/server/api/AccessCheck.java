package dev.tickwheel.server.api;

import dev.tickwheel.server.AccessService;
import dev.tickwheel.server.access.ApiToken;
import dev.tickwheel.server.access.TokenSecrets;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;

/**
 * Who is calling, and whether the route lets them ({@link RouteAccess}).
 *
 * <ul>
 *   <li>A server without tokens (no {@code --token}, none created) is open: every caller is {@link Caller#ANONYMOUS},
 *       an admin of every namespace. {@code ApiSettings} allows that on a loopback address only.</li>
 *   <li>Once a token exists, every route but the open ones needs {@code Authorization: Bearer <token>}, reads too;
 *       {@code /health} and {@code /metrics} stay open unless {@code --open-health false}.</li>
 *   <li>The server's {@code --token} is the bootstrap admin token of every namespace, compared in constant time
 *       (both sides hashed first, so neither content nor length leaks through timing). Other tokens are found by the
 *       hash of their secret ({@link AccessService#authenticate}).</li>
 *   <li>No token or an unknown, revoked or expired one: 401. A token whose role is short of the route's: 403 (the
 *       route exists for everyone; what is refused is the action). A token of another namespace than a resource's is
 *       answered 404 by the routes, as if the resource did not exist.</li>
 * </ul>
 *
 * <p>Thread-safe.
 */
final class AccessCheck {

    private static final String PREFIX = "Bearer ";

    private final byte[] bootstrapDigest;
    private final AccessService access;
    private final boolean openHealth;

    /**
     * @param bootstrapToken the server's {@code --token}, or null
     * @param openHealth     whether {@code /health} and {@code /metrics} need no token
     */
    AccessCheck(String bootstrapToken, AccessService access, boolean openHealth) {
        if (bootstrapToken != null && bootstrapToken.isBlank()) {
            throw new IllegalArgumentException("token must not be blank: '" + bootstrapToken + "'");
        }
        this.bootstrapDigest = bootstrapToken == null ? null : sha256(bootstrapToken);
        this.access = access;
        this.openHealth = openHealth;
    }

    /**
     * Who calls a route that needs {@code needed}: {@link #authorize} then says whether they may.
     *
     * @throws ApiException 401 without a valid token where one is needed
     */
    Caller identify(ApiExchange ctx, RouteAccess needed) {
        if (needed == RouteAccess.OPEN || (needed == RouteAccess.HEALTH && openHealth)) {
            return Caller.OPEN; // before any store read: /health answers while the store is down
        }
        if (bootstrapDigest == null && !access.anyToken()) {
            return Caller.ANONYMOUS;
        }
        return authenticate(ctx);
    }

    /**
     * Returns if {@code caller} ({@link #identify}) may call a route that needs {@code needed}.
     *
     * @throws ApiException 403 if its role or reach is short
     */
    static void authorize(Caller caller, ApiExchange ctx, RouteAccess needed) {
        if (needed == RouteAccess.OPEN || (needed == RouteAccess.HEALTH && caller == Caller.OPEN)) {
            return;
        }
        if (!caller.role().covers(needed.role())) {
            throw new ApiException(403, "forbidden", "token " + ApiException.quoted(caller.name()) + " has role "
                    + caller.role() + "; " + ctx.method() + " " + ctx.path() + " needs " + needed.role());
        }
        if (needed.everyNamespace() && caller.namespace() != null) {
            throw new ApiException(403, "forbidden", "token " + ApiException.quoted(caller.name())
                    + " is of namespace " + ApiException.quoted(caller.namespace()) + "; " + ctx.method() + " "
                    + ctx.path() + " needs a token of every namespace");
        }
    }

    private Caller authenticate(ApiExchange ctx) {
        String header = ctx.header("Authorization");
        if (header == null || !header.startsWith(PREFIX)) {
            throw new ApiException(401, "unauthorized", "header 'Authorization' must be 'Bearer <token>': this"
                    + " server needs a token for " + ctx.method() + " " + ctx.path());
        }
        String secret = header.substring(PREFIX.length()).trim();
        if (bootstrapDigest != null && MessageDigest.isEqual(bootstrapDigest, sha256(secret))) {
            return new Caller(Caller.BOOTSTRAP, null, dev.tickwheel.server.access.Role.ADMIN);
        }
        Optional<ApiToken> token = secret.startsWith(TokenSecrets.PREFIX) ? access.authenticate(secret)
                : Optional.empty();
        if (token.isEmpty()) {
            throw new ApiException(401, "unauthorized", "header 'Authorization' carries a wrong, revoked or expired"
                    + " token");
        }
        return new Caller(token.get().name(), token.get().namespace(), token.get().role());
    }

    private static byte[] sha256(String value) {
        return TokenSecrets.hash(value).getBytes(StandardCharsets.US_ASCII);
    }
}
