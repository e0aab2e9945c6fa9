package dev.tickwheel.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.client.model.AuditEntry;
import dev.tickwheel.client.model.AuditQuery;
import dev.tickwheel.client.model.Calendar;
import dev.tickwheel.client.model.CalendarRequest;
import dev.tickwheel.client.model.Caller;
import dev.tickwheel.client.model.InstanceQuery;
import dev.tickwheel.client.model.Job;
import dev.tickwheel.client.model.JobQuery;
import dev.tickwheel.client.model.JobRequest;
import dev.tickwheel.client.model.Namespace;
import dev.tickwheel.client.model.Page;
import dev.tickwheel.client.model.Pool;
import dev.tickwheel.client.model.PoolRequest;
import dev.tickwheel.client.model.Role;
import dev.tickwheel.client.model.RunRequest;
import dev.tickwheel.client.model.Schedule;
import dev.tickwheel.client.model.Target;
import dev.tickwheel.client.model.Token;
import dev.tickwheel.client.model.TokenRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Namespaces, tokens with roles, whoami and the audit trail through the client, against a real server started with a
 * bootstrap token ({@code --token}): a token's whole life (created with its secret once, used, listed, read, revoked),
 * a READ token refused a change (403), a namespace's token not seeing another namespace's job (404), and the audit
 * trail paged newest first.
 */
class AccessClientTest {

    private static final String BOOTSTRAP = "tw-access-bootstrap-0123456789";

    @TempDir
    static Path data;

    private static H2Server server;
    private static TickwheelClient admin;

    @BeforeAll
    static void start() throws Exception {
        server = H2Server.start(data, BOOTSTRAP);
        admin = TickwheelClient.builder(server.baseUrl()).token(BOOTSTRAP).build();
    }

    @AfterAll
    static void stop() throws Exception {
        if (admin != null) {
            admin.close();
        }
        server.close();
    }

    private static TickwheelClient clientWith(Token token) {
        return TickwheelClient.builder(server.baseUrl()).token(token.secret()).build();
    }

    private static JobRequest.Builder job(String name) {
        return JobRequest.builder(name, Schedule.api(), Target.webhook("http://127.0.0.1:9/none"));
    }

    @Test
    void token_createdUsedListedReadAndRevoked() {
        Namespace shop = admin.namespaces().create("shop");
        assertEquals("shop", shop.name());
        assertTrue(admin.namespaces().list().stream().map(Namespace::name).toList().containsAll(
                List.of("default", "shop")));
        Instant expiresAt = Instant.now().plus(Duration.ofDays(1));

        Token created = admin.tokens().create(TokenRequest.of("shop-operator", Role.OPERATE).inNamespace("shop")
                .expiresAt(expiresAt));

        assertTrue(created.secret().startsWith("tw_"), "the secret, shown once");
        assertFalse(created.toString().contains(created.secret()), "toString masks it: " + created);
        assertEquals("shop", created.namespace());
        assertEquals(Role.OPERATE, created.role());
        assertTrue(created.active());
        try (TickwheelClient operator = clientWith(created)) {
            Caller me = operator.whoami();
            assertEquals(new Caller("shop-operator", "shop", Role.OPERATE), me);
            assertEquals(me, operator.whoamiAsync().join());
            Job job = admin.jobs().create(job("shop report").namespace("shop").build());
            assertNotNull(operator.jobs().run(job.id(), RunRequest.after(Duration.ofHours(1))).instanceId());

            Token listed = admin.tokens().list().stream().filter(t -> t.id() == created.id()).findFirst()
                    .orElseThrow();
            assertNull(listed.secret(), "never shown again");
            Token read = admin.tokens().get(created.id());
            assertNull(read.secret());
            assertEquals(read, admin.tokens().getAsync(created.id()).join());
            assertEquals(expiresAt.getEpochSecond(), read.expiresAt().getEpochSecond());
            ConflictException taken = assertThrows(ConflictException.class,
                    () -> admin.tokens().create(TokenRequest.of("shop-operator", Role.READ).inNamespace("shop")));
            assertEquals("name_taken", taken.code());

            admin.tokens().revoke(created.id());
            admin.tokens().revoke(created.id()); // a repeat answers as the first: why the client retries it

            Token revoked = admin.tokens().get(created.id());
            assertFalse(revoked.active());
            assertNotNull(revoked.revokedAt());
            UnauthorizedException refused = assertThrows(UnauthorizedException.class, operator::whoami);
            assertEquals(401, refused.httpStatus());
            assertEquals("unauthorized", refused.code());
        }
    }

    @Test
    void readToken_change_isForbidden403() {
        Token reader = admin.tokens().create(TokenRequest.of("reader", Role.READ));
        long jobId = admin.jobs().create(job("read only").build()).id();
        try (TickwheelClient client = clientWith(reader)) {
            assertEquals("read only", client.jobs().get(jobId).name(), "a READ token reads");

            UnauthorizedException create = assertThrows(UnauthorizedException.class,
                    () -> client.jobs().create(job("by a reader").build()));
            UnauthorizedException run = assertThrows(UnauthorizedException.class,
                    () -> client.jobs().run(jobId, RunRequest.now().withKey("k")));

            assertEquals(403, create.httpStatus());
            assertEquals("forbidden", create.code());
            assertEquals(1, create.attempts());
            assertTrue(create.getMessage().contains("READ"), create.getMessage());
            assertEquals(403, run.httpStatus());
            assertEquals(1, run.attempts(), "a keyed run is retried after a lost answer, never after a 403");
            assertThrows(UnauthorizedException.class, () -> client.tokens().list());
            assertThrows(UnauthorizedException.class, () -> client.audit().list(AuditQuery.all()));
        }
    }

    @Test
    void namespaceToken_otherNamespacesJobAndInstance_areNotFound() {
        admin.namespaces().create("team-a");
        Job elsewhere = admin.jobs().create(job("default's job").build());
        long elsewhereRun = admin.jobs().run(elsewhere.id(), RunRequest.after(Duration.ofHours(1))).instanceId();
        Token teamAdmin = admin.tokens().create(TokenRequest.of("team-a-admin", Role.ADMIN).inNamespace("team-a"));
        try (TickwheelClient teamA = clientWith(teamAdmin)) {
            Job own = teamA.jobs().create(job("team a's job").build());

            assertEquals("team-a", own.namespace(), "a namespace token's job is in its namespace");
            assertEquals("default", elsewhere.namespace());
            NotFoundException job = assertThrows(NotFoundException.class, () -> teamA.jobs().get(elsewhere.id()));
            assertEquals("not_found", job.code());
            assertThrows(NotFoundException.class, () -> teamA.instances().get(elsewhereRun));
            assertThrows(NotFoundException.class, () -> teamA.instances().cancel(elsewhereRun));
            assertThrows(NotFoundException.class, () -> teamA.jobs().list(JobQuery.all().namespace("default")));
            assertEquals(List.of(own.id()), ids(teamA.jobs().list(JobQuery.all())));
            assertEquals(List.of(own.id()), ids(admin.jobs().list(JobQuery.all().namespace("team-a"))));
            assertTrue(ids(admin.jobs().list(JobQuery.all())).containsAll(List.of(own.id(), elsewhere.id())));
            assertTrue(admin.instances().list(InstanceQuery.all().namespace("team-a")).items().isEmpty());
            assertEquals(elsewhereRun, admin.instances().list(InstanceQuery.all().namespace("default")
                    .job(elsewhere.id())).items().get(0).id());
            UnauthorizedException everyNamespace = assertThrows(UnauthorizedException.class,
                    () -> teamA.tokens().create(TokenRequest.of("team-a-everything", Role.READ)));
            assertEquals(403, everyNamespace.httpStatus());
            assertEquals(new Caller("team-a-admin", "team-a", Role.ADMIN), teamA.whoami());
        }
    }

    @Test
    void poolsAndCalendars_areOfANamespace_aNamespaceTokenReachesItsOwn_andAllTokensNameOneWithInNamespace() {
        admin.namespaces().create("team-p");
        Token teamAdmin = admin.tokens().create(TokenRequest.of("team-p-admin", Role.ADMIN).inNamespace("team-p"));
        try (TickwheelClient teamP = clientWith(teamAdmin)) {
            Pool own = teamP.pools().create(PoolRequest.of("egress", 3));
            Pool defaults = admin.pools().create(PoolRequest.of("egress", 5));
            Calendar closed = teamP.calendars().create(CalendarRequest.of("closed", java.time.ZoneOffset.UTC,
                    List.of(), List.of(java.time.DayOfWeek.SUNDAY)));

            assertEquals("team-p", own.namespace());
            assertEquals("default", defaults.namespace(), "the same name in another namespace is another pool");
            assertEquals("team-p", closed.namespace());
            assertEquals(own, teamP.pools().get("egress"));
            assertEquals(own, admin.pools().inNamespace("team-p").get("egress"));
            assertEquals(defaults, admin.pools().get("egress"), "a token of every namespace: default unless named");
            assertEquals(List.of(own), teamP.pools().list());
            assertEquals(List.of(closed), admin.calendars().inNamespace("team-p").list());
            assertThrows(NotFoundException.class, () -> teamP.pools().inNamespace("default").get("egress"));
            assertThrows(NotFoundException.class, () -> teamP.calendars().inNamespace("default").list());

            Pool replaced = admin.pools().inNamespace("team-p").replace("egress", PoolRequest.of("egress", 4));
            assertEquals(4, replaced.maxConcurrent());
            assertEquals(4, teamP.pools().get("egress").maxConcurrent());
            assertEquals("team-p", admin.pools().create(PoolRequest.of("batch", 1).inNamespace("team-p"))
                    .namespace());
            Job job = teamP.jobs().create(job("pooled").pool("egress", dev.tickwheel.client.model.OverLimit.WAIT).build());
            assertEquals("egress", job.pool(), "a job names its namespace's pool by its name");
            assertThrows(ConflictException.class, () -> admin.pools().inNamespace("team-p").delete("egress"));
            admin.pools().delete("egress");
            assertEquals(own.name(), teamP.pools().get("egress").name(), "deleting default's left team-p's");
        }
    }

    @Test
    void audit_pagedNewestFirst_eachEntryOnce() {
        List<Long> created = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            created.add(admin.jobs().create(job("audited " + i).build()).id());
        }
        AuditQuery query = AuditQuery.all().actor("bootstrap").action("POST /api/jobs").limit(2);

        List<AuditEntry> entries = new ArrayList<>();
        int pages = 0;
        Page<AuditEntry> page = admin.audit().list(query);
        while (true) {
            pages++;
            assertTrue(page.items().size() <= 2, "at most the limit a page");
            entries.addAll(page.items());
            if (!page.hasNext()) {
                break;
            }
            page = admin.audit().list(query.after(page.nextCursor()));
        }

        assertTrue(pages >= 3, "5 creations or more, 2 a page: " + pages);
        assertEquals(admin.audit().list(query).items(), admin.audit().listAsync(query).join().items());
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < entries.size(); i++) {
            AuditEntry entry = entries.get(i);
            assertTrue(seen.add(entry.id()), "each entry once: " + entry);
            assertEquals("bootstrap", entry.actor());
            assertTrue(entry.action().contains("POST /api/jobs"), entry.action());
            if (i > 0) {
                assertTrue(entry.id() < entries.get(i - 1).id(), "newest first: " + entries);
            }
        }
        List<String> targets = entries.stream().map(AuditEntry::target).toList();
        for (long id : created) {
            assertTrue(targets.contains("job " + id), "job " + id + " in " + targets);
        }
        String lastTarget = "job " + created.get(created.size() - 1);
        AuditEntry last = entries.stream().filter(e -> lastTarget.equals(e.target())).findFirst().orElseThrow();
        assertEquals("POST /api/jobs", last.action());
        assertEquals(201, last.status());
        assertEquals("default", last.namespace());
        assertEquals("audited 4", last.changes().path("name").asText(), "the body given: " + last.changes());
        assertEquals(List.of(last), admin.audit().list(AuditQuery.all().target(lastTarget)
                .between(last.at().minusSeconds(1), last.at().plusSeconds(1))).items());
    }

    private static List<Long> ids(Page<Job> page) {
        return page.items().stream().map(Job::id).toList();
    }
}
