package dev.tickwheel.server;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.access.ApiToken;
import dev.tickwheel.server.access.Namespace;
import dev.tickwheel.server.access.Namespaces;
import dev.tickwheel.server.access.Role;
import dev.tickwheel.server.access.TokenSecrets;
import dev.tickwheel.server.store.AccessStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Namespaces, API tokens, and the namespace each job belongs to.
 *
 * <p>Tokens: {@link #createToken} makes the secret and stores only its hash; {@link #authenticate} finds the token of
 * a secret. What it costs an API call, and how fast a change reaches every member:
 * <ul>
 *   <li>A secret's token is cached for {@link #TOKEN_CACHE_TTL} (5 s), unknown secrets too, so a call costs a hash and
 *       a map lookup, and a flood of wrong tokens costs one read per distinct secret per 5 s. A revocation applies at
 *       once on the member that revoked, and within 5 s on the others; an expiry at its instant everywhere (checked on
 *       every call).</li>
 *   <li>The last-used time is written at most once per {@link #LAST_USED_RESOLUTION} (a minute) per token and member,
 *       not on every call.</li>
 *   <li>A job's namespace never changes, so it is cached without expiry (bounded in size).</li>
 * </ul>
 *
 * <p>Thread-safe.
 */
public final class AccessService {

    static final Duration TOKEN_CACHE_TTL = Duration.ofSeconds(5);
    static final Duration LAST_USED_RESOLUTION = Duration.ofMinutes(1);
    private static final int JOB_NAMESPACE_CACHE_SIZE = 100_000;

    /** A token just created, with its secret: the only time the secret is known. */
    public record CreatedToken(ApiToken token, String secret) {
    }

    /** What {@link #createToken} did. */
    public enum TokenCreation {
        CREATED,
        /** A token of the name exists: nothing was written. */
        NAME_TAKEN,
        /** The namespace does not exist: nothing was written. */
        NO_SUCH_NAMESPACE
    }

    private final AccessStore store;
    private final SnowflakeIdGenerator ids;
    private final Clock clock;
    /** Secret hash → token, or empty for an unknown secret. */
    private final Cache<String, Optional<ApiToken>> tokensByHash = Caffeine.newBuilder()
            .expireAfterWrite(TOKEN_CACHE_TTL).maximumSize(10_000).build();
    /** Token id → when this member last wrote its last-used time. */
    private final Cache<Long, Instant> lastUseWritten = Caffeine.newBuilder()
            .expireAfterWrite(LAST_USED_RESOLUTION).maximumSize(10_000).build();
    private final Cache<Long, String> jobNamespaces = Caffeine.newBuilder()
            .maximumSize(JOB_NAMESPACE_CACHE_SIZE).build();
    /** Whether any token has been stored; only ever goes from false to true. */
    private volatile boolean anyTokenSeen;
    /** While none was seen: when the store was last asked (monotonic nanos), so that a call costs no read. */
    private volatile long noTokenCheckedAtNanos;
    private volatile boolean noTokenChecked;

    AccessService(AccessStore store, SnowflakeIdGenerator ids, Clock clock) {
        this.store = Objects.requireNonNull(store, "store");
        this.ids = Objects.requireNonNull(ids, "ids");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Creates a namespace; false if it exists. */
    public boolean createNamespace(String name) {
        return store.insertNamespace(new Namespace(Namespaces.check(name), Instant.ofEpochMilli(clock.millis())));
    }

    public Optional<Namespace> namespace(String name) {
        return Namespaces.problem(name) == null ? store.namespace(name) : Optional.empty();
    }

    /** Every namespace, by name. */
    public List<Namespace> namespaces() {
        return store.namespaces();
    }

    /**
     * Creates a token and its secret.
     *
     * @param namespace the one namespace it may act in, or null for all
     * @param expiresAt when it stops working, or null for never
     * @return the token with its secret, or empty with why not
     * @throws IllegalArgumentException if the name is blank or too long, or {@code expiresAt} is not in the future
     */
    public Result createToken(String name, String namespace, Role role, Instant expiresAt) {
        Instant now = Instant.ofEpochMilli(clock.millis());
        if (expiresAt != null && !expiresAt.isAfter(now)) {
            throw new IllegalArgumentException("expiresAt must be in the future, got " + expiresAt);
        }
        ApiToken token = new ApiToken(ids.nextId(), name, namespace, role, now, expiresAt, null, null);
        if (namespace != null && store.namespace(namespace).isEmpty()) {
            return new Result(null, TokenCreation.NO_SUCH_NAMESPACE);
        }
        String secret = TokenSecrets.newSecret();
        if (!store.insertToken(token, TokenSecrets.hash(secret))) {
            return new Result(null, TokenCreation.NAME_TAKEN);
        }
        anyTokenSeen = true;
        return new Result(new CreatedToken(token, secret), TokenCreation.CREATED);
    }

    /** A token created, or why not. */
    public record Result(CreatedToken created, TokenCreation outcome) {
    }

    /**
     * The active token of {@code secret}: empty if unknown, revoked (within {@link #TOKEN_CACHE_TTL} on other members)
     * or expired. Records its use (at most once a minute).
     */
    public Optional<ApiToken> authenticate(String secret) {
        if (secret == null || !secret.startsWith(TokenSecrets.PREFIX)) {
            return Optional.empty();
        }
        String hash = TokenSecrets.hash(secret);
        Optional<ApiToken> token = tokensByHash.get(hash, store::tokenByHash);
        Instant now = Instant.ofEpochMilli(clock.millis());
        if (token.isEmpty() || !token.get().activeAt(now)) {
            return Optional.empty();
        }
        long id = token.get().id();
        if (lastUseWritten.asMap().putIfAbsent(id, now) == null) {
            store.touchToken(id, now);
        }
        return token;
    }

    public Optional<ApiToken> token(long id) {
        return store.token(id);
    }

    /** The tokens of one namespace (null: every token), by name. */
    public List<ApiToken> tokens(String namespace) {
        return store.tokens(namespace);
    }

    /** Revokes a token: at once on this member, within {@link #TOKEN_CACHE_TTL} on the others. */
    public boolean revokeToken(long id) {
        boolean revoked = store.revokeToken(id, Instant.ofEpochMilli(clock.millis()));
        tokensByHash.asMap().replaceAll((hash, token) -> token.filter(t -> t.id() != id));
        return revoked;
    }

    /**
     * True once any API token has been stored, revoked ones included: at once for one created on this member, within
     * {@link #TOKEN_CACHE_TTL} for one created on another (the store is asked at most that often while there is none).
     */
    public boolean anyToken() {
        if (anyTokenSeen) {
            return true;
        }
        long now = System.nanoTime();
        if (noTokenChecked && now - noTokenCheckedAtNanos < TOKEN_CACHE_TTL.toNanos()) {
            return false;
        }
        if (store.anyToken()) {
            anyTokenSeen = true;
            return true;
        }
        noTokenCheckedAtNanos = now;
        noTokenChecked = true;
        return false;
    }

    /**
     * The namespace of a job, deleted ones included. A job with none recorded (deleted before namespaces existed, or
     * an id no job has) is in {@link Namespaces#DEFAULT}: a route then answers that the job does not exist.
     */
    public String namespaceOfJob(long jobId) {
        return namespacesOfJobs(List.of(jobId)).get(jobId);
    }

    /**
     * {@link #namespaceOfJob} of each job among {@code jobIds}. A recorded namespace is cached (a job never changes
     * namespace); a defaulted one is not, so an id looked up before its job is created does not stay "default".
     */
    public Map<Long, String> namespacesOfJobs(Collection<Long> jobIds) {
        Map<Long, String> found = new HashMap<>(jobNamespaces.getAllPresent(jobIds));
        if (found.size() < jobIds.size()) {
            List<Long> missing = jobIds.stream().filter(id -> !found.containsKey(id)).distinct().toList();
            Map<Long, String> read = store.namespacesOfJobs(missing);
            jobNamespaces.putAll(read);
            found.putAll(read);
            missing.forEach(id -> found.putIfAbsent(id, Namespaces.DEFAULT));
        }
        return found;
    }
}
