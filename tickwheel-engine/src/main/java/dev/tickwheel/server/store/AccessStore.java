package dev.tickwheel.server.store;

import dev.tickwheel.server.access.ApiToken;
import dev.tickwheel.server.access.Namespace;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Durable storage of namespaces, API tokens (by the hash of their secret) and the namespace of each job.
 *
 * <p>Every method is one transaction. Thread-safe.
 */
public interface AccessStore {

    /** Inserts a namespace; false if one of the name exists (nothing written). */
    boolean insertNamespace(Namespace namespace);

    Optional<Namespace> namespace(String name);

    /** Every namespace, by name. */
    List<Namespace> namespaces();

    /**
     * Inserts a token with the hash of its secret.
     *
     * @return false if a token of the name exists (nothing written)
     */
    boolean insertToken(ApiToken token, String secretHash);

    /** The token whose secret hashes to {@code secretHash}, revoked and expired ones included. */
    Optional<ApiToken> tokenByHash(String secretHash);

    Optional<ApiToken> token(long id);

    /** The tokens of one namespace (null: every token), by name. */
    List<ApiToken> tokens(String namespace);

    /** Marks a token revoked at {@code at} unless it already is; false if it was (or is unknown). */
    boolean revokeToken(long id, Instant at);

    /** Records that the token was used at {@code at}. */
    void touchToken(long id, Instant at);

    /** True if any token is stored, revoked or not. */
    boolean anyToken();

    /**
     * The namespace of each job among {@code jobIds} that has one recorded, deleted ones included. Absent: a job
     * deleted before namespaces existed (it was in {@link dev.tickwheel.server.access.Namespaces#DEFAULT}), or an id
     * no job has (yet).
     */
    Map<Long, String> namespacesOfJobs(Collection<Long> jobIds);
}
