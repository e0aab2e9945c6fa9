package dev.tickwheel.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.access.ApiToken;
import dev.tickwheel.server.access.Namespaces;
import dev.tickwheel.server.access.Role;
import dev.tickwheel.server.access.TokenSecrets;
import dev.tickwheel.server.store.AccessStore;
import dev.tickwheel.server.store.jdbc.JdbcStoreConfig;
import dev.tickwheel.server.store.jdbc.JdbcStores;
import dev.tickwheel.server.store.jdbc.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A token's life through {@link AccessService} on a settable clock: created with a secret shown once, found by it,
 * its use recorded at most once a minute, expired at its instant, revoked at once on this member.
 */
class AccessServiceTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    private JdbcStores stores;
    private CountingStore store;
    private AccessService access;

    @BeforeEach
    void open() {
        stores = JdbcStores.open(JdbcStoreConfig.builder()
                .jdbcUrl("jdbc:h2:mem:tw_" + UUID.randomUUID().toString().replace("-", "")).build());
        store = new CountingStore(stores.access());
        access = new AccessService(store, new SnowflakeIdGenerator(1, clock), clock);
    }

    @AfterEach
    void close() {
        stores.close();
    }

    @Test
    void token_createdWithSecret_authenticates_untilItExpires() {
        assertTrue(access.createNamespace("payments"));
        AccessService.Result result = access.createToken("ci", "payments", Role.OPERATE,
                clock.instant().plus(Duration.ofHours(1)));
        assertEquals(AccessService.TokenCreation.CREATED, result.outcome());
        String secret = result.created().secret();
        assertTrue(secret.startsWith(TokenSecrets.PREFIX) && secret.length() == 46, secret);

        ApiToken found = access.authenticate(secret).orElseThrow();
        assertEquals("ci", found.name());
        assertEquals("payments", found.namespace());
        assertEquals(Role.OPERATE, found.role());
        assertTrue(access.authenticate(secret + "x").isEmpty());
        assertTrue(access.authenticate("not-a-token").isEmpty());

        clock.advance(Duration.ofMinutes(59));
        assertTrue(access.authenticate(secret).isPresent(), "a minute before its expiry");
        clock.advance(Duration.ofMinutes(1));
        assertTrue(access.authenticate(secret).isEmpty(), "at its expiry");
    }

    @Test
    void revoke_appliesAtOnceOnThisMember_evenWithTheSecretCached() {
        String secret = access.createToken("ops", null, Role.ADMIN, null).created().secret();
        long id = access.authenticate(secret).orElseThrow().id(); // now cached
        assertTrue(access.revokeToken(id));
        assertTrue(access.authenticate(secret).isEmpty());
        assertFalse(access.revokeToken(id), "revoked once");
        assertNotEquals(null, access.token(id).orElseThrow().revokedAt());
    }

    @Test
    void lastUsed_writtenAtMostOncePerMinute() {
        String secret = access.createToken("busy", null, Role.READ, null).created().secret();
        Instant first = clock.instant();
        for (int i = 0; i < 100; i++) {
            assertTrue(access.authenticate(secret).isPresent());
        }
        assertEquals(1, store.touches.get(), "100 calls, one write");
        long id = access.authenticate(secret).orElseThrow().id();
        assertEquals(first, access.token(id).orElseThrow().lastUsedAt());
    }

    @Test
    void createToken_refusals() {
        assertEquals(AccessService.TokenCreation.NO_SUCH_NAMESPACE,
                access.createToken("x", "nowhere", Role.READ, null).outcome());
        assertEquals(AccessService.TokenCreation.CREATED, access.createToken("x", null, Role.READ, null).outcome());
        AccessService.Result again = access.createToken("x", null, Role.ADMIN, null);
        assertEquals(AccessService.TokenCreation.NAME_TAKEN, again.outcome());
        assertNull(again.created());
        assertThrows(IllegalArgumentException.class, () -> access.createToken("past", null, Role.READ,
                clock.instant()));
        assertThrows(IllegalArgumentException.class, () -> access.createToken(" ", null, Role.READ, null));
        assertThrows(IllegalArgumentException.class, () -> access.createNamespace("Bad_Name"));
    }

    @Test
    void secrets_areRandom_andOnlyTheirHashIsStored() {
        Set<String> secrets = new HashSet<>();
        for (int i = 0; i < 50; i++) {
            secrets.add(access.createToken("t" + i, null, Role.READ, null).created().secret());
        }
        assertEquals(50, secrets.size());
        for (String secret : secrets) {
            assertTrue(store.delegate.tokenByHash(TokenSecrets.hash(secret)).isPresent());
        }
    }

    @Test
    void anyToken_falseUntilOneIsCreated_thenTrue() {
        assertFalse(access.anyToken());
        assertFalse(access.anyToken());
        access.createToken("first", null, Role.READ, null);
        assertTrue(access.anyToken(), "at once on the member that created it");
    }

    @Test
    void namespaceOfJob_unknownIsDefaultButNotCached() {
        assertEquals(Namespaces.DEFAULT, access.namespaceOfJob(42));
        assertEquals(Namespaces.DEFAULT, access.namespaceOfJob(42));
        assertEquals(2, store.namespaceReads.get(), "a defaulted answer is read again, not cached");
    }

    /** Counts the writes of last-used times and the namespace reads. */
    private static final class CountingStore implements AccessStore {

        final AccessStore delegate;
        final AtomicInteger touches = new AtomicInteger();
        final AtomicInteger namespaceReads = new AtomicInteger();

        CountingStore(AccessStore delegate) {
            this.delegate = delegate;
        }

        @Override
        public boolean insertNamespace(dev.tickwheel.server.access.Namespace namespace) {
            return delegate.insertNamespace(namespace);
        }

        @Override
        public java.util.Optional<dev.tickwheel.server.access.Namespace> namespace(String name) {
            return delegate.namespace(name);
        }

        @Override
        public java.util.List<dev.tickwheel.server.access.Namespace> namespaces() {
            return delegate.namespaces();
        }

        @Override
        public boolean insertToken(ApiToken token, String secretHash) {
            return delegate.insertToken(token, secretHash);
        }

        @Override
        public java.util.Optional<ApiToken> tokenByHash(String secretHash) {
            return delegate.tokenByHash(secretHash);
        }

        @Override
        public java.util.Optional<ApiToken> token(long id) {
            return delegate.token(id);
        }

        @Override
        public java.util.List<ApiToken> tokens(String namespace) {
            return delegate.tokens(namespace);
        }

        @Override
        public boolean revokeToken(long id, Instant at) {
            return delegate.revokeToken(id, at);
        }

        @Override
        public void touchToken(long id, Instant at) {
            touches.incrementAndGet();
            delegate.touchToken(id, at);
        }

        @Override
        public boolean anyToken() {
            return delegate.anyToken();
        }

        @Override
        public java.util.Map<Long, String> namespacesOfJobs(java.util.Collection<Long> jobIds) {
            namespaceReads.incrementAndGet();
            return delegate.namespacesOfJobs(jobIds);
        }
    }
}
