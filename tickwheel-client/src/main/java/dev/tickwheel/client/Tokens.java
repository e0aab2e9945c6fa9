package dev.tickwheel.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tickwheel.client.model.Page;
import dev.tickwheel.client.model.Token;
import dev.tickwheel.client.model.TokenRequest;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The {@code /api/tokens} operations of a {@link TickwheelClient}: create a token (its secret is shown once), list,
 * read, revoke. Every one needs an ADMIN token; a token of one namespace sees and makes tokens of its own namespace
 * only.
 *
 * <p><b>A create is never retried.</b> The server keeps only a hash of the secret and shows it in the create's answer
 * alone, so an answer that is lost loses the secret: a repeat could not bring it back (it would answer 409
 * {@code name_taken}, the first attempt having made the token), and a repeat under another name would leave a
 * working token nobody holds. A lost answer is an {@link UnavailableException} saying the call may or may not have
 * been made; then {@link #list()} shows whether a token of that name exists, and if it does, {@link #revoke} it and
 * create another. Reads are retried, and so is a revoke: the server answers 204 also for a token revoked already.
 *
 * <p>Thread-safe.
 */
public final class Tokens {

    private final ApiTransport transport;
    private final NamedResourceCalls<Token> calls;

    Tokens(ApiTransport transport, ObjectMapper json) {
        this.transport = transport;
        this.calls = new NamedResourceCalls<>(json, "/api/tokens", Token.class);
    }

    /**
     * {@code POST /api/tokens}: a new token, whose {@link Token#secret()} is the bearer token to hand to its holder;
     * this answer is the only one that carries it. Not retried (see above).
     *
     * @throws ConflictException     if a token of that name exists ({@code name_taken}), revoked ones included
     * @throws ValidationException   naming {@code name}, {@code namespace} (one that does not exist) or
     *                               {@code expiresAt} (not in the future)
     * @throws UnauthorizedException 403 for a token short of ADMIN, or a token of one namespace asking for a token of
     *                               every namespace
     * @throws NotFoundException     for a token of one namespace naming another
     */
    public Token create(TokenRequest token) {
        return transport.call(calls.create(token));
    }

    public CompletableFuture<Token> createAsync(TokenRequest token) {
        return transport.send(calls.create(token));
    }

    /** {@code GET /api/tokens}: every token (revoked ones too) without its secret. */
    public List<Token> list() {
        return transport.call(calls.list()).items();
    }

    public CompletableFuture<List<Token>> listAsync() {
        return transport.send(calls.list()).thenApply(Page::items);
    }

    /** {@code GET /api/tokens/{id}}, without its secret. @throws NotFoundException if unknown or another namespace's */
    public Token get(long tokenId) {
        return transport.call(calls.get(Long.toString(tokenId)));
    }

    public CompletableFuture<Token> getAsync(long tokenId) {
        return transport.send(calls.get(Long.toString(tokenId)));
    }

    /**
     * {@code DELETE /api/tokens/{id}}: revokes the token; every later call with it is a 401. It stays listed, with
     * {@link Token#revokedAt()}. Retried: revoking a revoked token answers as the first revoke did.
     *
     * @throws NotFoundException if unknown or another namespace's
     */
    public void revoke(long tokenId) {
        transport.call(revokeCall(tokenId));
    }

    public CompletableFuture<Void> revokeAsync(long tokenId) {
        return transport.send(revokeCall(tokenId));
    }

    private static ApiCall<Void> revokeCall(long tokenId) {
        return new ApiCall<>("DELETE", "/api/tokens/" + tokenId, null, true, Set.of(204), null);
    }
}
