package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.server.access.Role;
import dev.tickwheel.server.app.TickwheelApplication;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every route against every role, of the resource's namespace, of another namespace and of every namespace, and
 * without a token: which callers get through and which are refused, and how.
 *
 * <p>The table below states the policy independently of the code: each route's access level and a request to it. A
 * route the server registers without an entry here fails {@link #everyRoute_hasAnEntry}; a route whose registered
 * level differs from the table's fails {@link #everyRoute_hasTheTablesAccess}. Then each route is called by each caller,
 * each call on fresh resources (a job and a waiting instance of team-a, made by the bootstrap token), and:
 * <ul>
 *   <li>no token, or a role short of the route's: 401 or 403, and nothing changed;</li>
 *   <li>a token of another namespace on a team-a resource: 404, as if it did not exist;</li>
 *   <li>enough role and reach: any answer but 401, 403 and (for team-a resources) 404.</li>
 * </ul>
 */
class RouteAccessTest {

    private static final String BOOTSTRAP = "bootstrap-secret";
    private static final String TEAM = "team-a";
    private static final String OTHER = "team-b";

    @TempDir
    static Path dir;

    static TickwheelApplication app;
    static ApiClient admin;
    /** Caller name → its client (token), in the order of {@link #CALLERS}. */
    static final Map<String, ApiClient> clients = new LinkedHashMap<>();
    static final AtomicInteger fresh = new AtomicInteger();

    /** A caller: its role, and its namespace (null: every namespace; "none": no token at all). */
    record CallerSpec(String name, Role role, String namespace) {
    }

    static final List<CallerSpec> CALLERS = List.of(
            new CallerSpec("no-token", null, "none"),
            new CallerSpec("a-read", Role.READ, TEAM),
            new CallerSpec("a-operate", Role.OPERATE, TEAM),
            new CallerSpec("a-admin", Role.ADMIN, TEAM),
            new CallerSpec("b-admin", Role.ADMIN, OTHER),
            new CallerSpec("all-read", Role.READ, null),
            new CallerSpec("all-operate", Role.OPERATE, null),
            new CallerSpec("all-admin", Role.ADMIN, null));

    /** The resources one call works on: made fresh for it by the bootstrap token. */
    record Fixture(String jobId, String instanceId, String key, String name, String workflowId, String runId,
                   String tokenId) {
    }

    /** One request: method, path and body from the fixture; and whether its path names a team-a resource. */
    record Call(RouteAccess access, boolean teamResource, Function<Fixture, String> path, String body) {
    }

    static final String JOB_BODY = """
            {"name": "j", "schedule": {"type": "API"}, "target": {"type": "WEBHOOK", "url": "http://127.0.0.1:9/x"}}""";

    /** The policy: route → access and a request. */
    static final Map<String, Call> TABLE = new LinkedHashMap<>();

    static {
        table("POST /api/jobs", RouteAccess.ADMIN, false, f -> "/api/jobs", JOB_BODY);
        table("GET /api/jobs", RouteAccess.READ, false, f -> "/api/jobs", null);
        table("GET /api/jobs/{id}", RouteAccess.READ, true, f -> "/api/jobs/" + f.jobId(), null);
        table("PUT /api/jobs/{id}", RouteAccess.ADMIN, true, f -> "/api/jobs/" + f.jobId(), JOB_BODY);
        table("DELETE /api/jobs/{id}", RouteAccess.ADMIN, true, f -> "/api/jobs/" + f.jobId(), null);
        table("POST /api/jobs/{id}/enable", RouteAccess.OPERATE, true, f -> "/api/jobs/" + f.jobId() + "/enable", null);
        table("POST /api/jobs/{id}/disable", RouteAccess.OPERATE, true, f -> "/api/jobs/" + f.jobId() + "/disable",
                null);
        table("POST /api/jobs/{id}/run", RouteAccess.OPERATE, true, f -> "/api/jobs/" + f.jobId() + "/run",
                "{\"delayMs\": 600000}");
        table("POST /api/jobs/{id}/runs", RouteAccess.OPERATE, true, f -> "/api/jobs/" + f.jobId() + "/runs",
                "{\"runs\": [{\"delayMs\": 600000}]}");
        table("GET /api/jobs/{id}/runs/{key}", RouteAccess.READ, true,
                f -> "/api/jobs/" + f.jobId() + "/runs/" + f.key(), null);
        table("POST /api/jobs/{id}/runs/{key}/cancel", RouteAccess.OPERATE, true,
                f -> "/api/jobs/" + f.jobId() + "/runs/" + f.key() + "/cancel", null);
        table("POST /api/jobs/{id}/runs/{key}/reschedule", RouteAccess.OPERATE, true,
                f -> "/api/jobs/" + f.jobId() + "/runs/" + f.key() + "/reschedule", "{\"delayMs\": 700000}");
        table("GET /api/instances", RouteAccess.READ, false, f -> "/api/instances", null);
        table("POST /api/instances/cancel", RouteAccess.OPERATE, false, f -> "/api/instances/cancel",
                "{\"ids\": [1]}");
        table("POST /api/instances/rerun", RouteAccess.OPERATE, false, f -> "/api/instances/rerun",
                "{\"dryRun\": true}");
        table("GET /api/instances/{id}", RouteAccess.READ, true, f -> "/api/instances/" + f.instanceId(), null);
        table("POST /api/instances/{id}/cancel", RouteAccess.OPERATE, true,
                f -> "/api/instances/" + f.instanceId() + "/cancel", null);
        table("POST /api/instances/{id}/reschedule", RouteAccess.OPERATE, true,
                f -> "/api/instances/" + f.instanceId() + "/reschedule", "{\"delayMs\": 700000}");
        table("POST /api/instances/{id}/rerun", RouteAccess.OPERATE, true,
                f -> "/api/instances/" + f.instanceId() + "/rerun", null);
        // The fixture's calendars and pools are team-a's; ?namespace= names it for a caller of every namespace.
        table("POST /api/calendars", RouteAccess.ADMIN, false, f -> "/api/calendars",
                "{\"name\": \"c-" + "NAME\"}");
        table("GET /api/calendars", RouteAccess.READ, false, f -> "/api/calendars", null);
        table("GET /api/calendars/{name}", RouteAccess.READ, true, f -> inTeam("/api/calendars/" + f.name()), null);
        table("PUT /api/calendars/{name}", RouteAccess.ADMIN, true, f -> inTeam("/api/calendars/" + f.name()),
                "{\"excludedWeekdays\": [\"SUNDAY\"]}");
        table("DELETE /api/calendars/{name}", RouteAccess.ADMIN, true, f -> inTeam("/api/calendars/" + f.name()),
                null);
        table("POST /api/callbacks/{token}", RouteAccess.OPEN, false, f -> "/api/callbacks/1.1.1.bad",
                "{\"outcome\": \"SUCCEEDED\"}");
        table("POST /api/workflows", RouteAccess.ADMIN, false, f -> "/api/workflows", "{}");
        table("GET /api/workflows", RouteAccess.READ, false, f -> "/api/workflows", null);
        // The fixture's workflow is over a team-a job: it is team-a's.
        table("GET /api/workflows/{id}", RouteAccess.READ, true, f -> "/api/workflows/" + f.workflowId(), null);
        table("POST /api/workflows/{id}/run", RouteAccess.OPERATE, true,
                f -> "/api/workflows/" + f.workflowId() + "/run", null);
        table("GET /api/workflow-runs/{id}", RouteAccess.READ, true, f -> "/api/workflow-runs/" + f.runId(), null);
        table("POST /api/workflow-runs/{id}/cancel", RouteAccess.OPERATE, true,
                f -> "/api/workflow-runs/" + f.runId() + "/cancel", null);
        table("POST /api/pools", RouteAccess.ADMIN, false, f -> "/api/pools", "{}");
        table("GET /api/pools", RouteAccess.READ, false, f -> "/api/pools", null);
        table("GET /api/pools/{name}", RouteAccess.READ, true, f -> inTeam("/api/pools/" + f.name()), null);
        table("PUT /api/pools/{name}", RouteAccess.ADMIN, true, f -> inTeam("/api/pools/" + f.name()),
                "{\"maxConcurrent\": 3}");
        table("DELETE /api/pools/{name}", RouteAccess.ADMIN, true, f -> inTeam("/api/pools/" + f.name()), null);
        table("POST /api/namespaces", RouteAccess.SERVER_ADMIN, false, f -> "/api/namespaces",
                "{\"name\": \"ns-NAME\"}");
        table("GET /api/namespaces", RouteAccess.READ, false, f -> "/api/namespaces", null);
        table("POST /api/tokens", RouteAccess.ADMIN, false, f -> "/api/tokens",
                "{\"name\": \"t-NAME\", \"namespace\": \"" + TEAM + "\", \"role\": \"READ\"}");
        table("GET /api/tokens", RouteAccess.ADMIN, false, f -> "/api/tokens", null);
        table("GET /api/tokens/{id}", RouteAccess.ADMIN, true, f -> "/api/tokens/" + f.tokenId(), null);
        table("DELETE /api/tokens/{id}", RouteAccess.ADMIN, true, f -> "/api/tokens/" + f.tokenId(), null);
        table("GET /api/whoami", RouteAccess.READ, false, f -> "/api/whoami", null);
        table("GET /api/audit", RouteAccess.ADMIN, false, f -> "/api/audit", null);
        table("GET /api/cluster", RouteAccess.SERVER_READ, false, f -> "/api/cluster", null);
        table("GET /health", RouteAccess.HEALTH, false, f -> "/health", null);
        table("GET /metrics", RouteAccess.HEALTH, false, f -> "/metrics", null);
        table("GET /", RouteAccess.OPEN, false, f -> "/", null);
        table("GET /openapi.yaml", RouteAccess.OPEN, false, f -> "/openapi.yaml", null);
        table("GET /api-docs", RouteAccess.OPEN, false, f -> "/api-docs", null);
    }

    /** A calendar's or pool's path in team-a: a token of team-b asking for it there gets the 404 of a missing one. */
    private static String inTeam(String path) {
        return path + "?namespace=" + TEAM;
    }

    private static void table(String route, RouteAccess access, boolean teamResource, Function<Fixture, String> path,
                              String body) {
        TABLE.put(route, new Call(access, teamResource, path, body));
    }

    @BeforeAll
    static void start() {
        app = TestServers.start(dir, BOOTSTRAP, false);
        admin = new ApiClient(app.baseUrl()).withToken(BOOTSTRAP);
        for (String namespace : List.of(TEAM, OTHER)) {
            ApiClient.Reply created = admin.post("/api/namespaces", "{\"name\": \"" + namespace + "\"}");
            assertEquals(201, created.status(), created.toString());
        }
        for (CallerSpec caller : CALLERS) {
            if ("none".equals(caller.namespace())) {
                clients.put(caller.name(), new ApiClient(app.baseUrl()));
                continue;
            }
            String namespace = caller.namespace() == null ? "" : ", \"namespace\": \"" + caller.namespace() + "\"";
            ApiClient.Reply token = admin.post("/api/tokens", "{\"name\": \"" + caller.name() + "\", \"role\": \""
                    + caller.role() + "\"" + namespace + "}");
            assertEquals(201, token.status(), token.toString());
            clients.put(caller.name(), new ApiClient(app.baseUrl()).withToken(token.json().get("secret").asText()));
        }
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    @Test
    void everyRoute_hasAnEntry() {
        TreeSet<String> registered = new TreeSet<>();
        routes().forEach(r -> registered.add(r.method() + " " + r.path()));
        assertEquals(new TreeSet<>(TABLE.keySet()), registered,
                "every registered route needs an entry in RouteAccessTest.TABLE, and every entry a route");
    }

    @Test
    void everyRoute_hasTheTablesAccess() {
        for (ApiRoute route : routes()) {
            String name = route.method() + " " + route.path();
            assertEquals(TABLE.get(name).access(), route.access(), name);
        }
    }

    @Test
    void everyRoute_againstEveryCaller() {
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, Call> entry : TABLE.entrySet()) {
            Call call = entry.getValue();
            String method = entry.getKey().substring(0, entry.getKey().indexOf(' '));
            // Callers the policy refuses change nothing (asserted below), so they share one fixture per route.
            Fixture unchanged = "GET".equals(method) ? shared() : fixture(entry.getKey());
            for (CallerSpec caller : CALLERS) {
                Fixture fixture = "GET".equals(method) || !"allowed".equals(expected(call, caller)) ? unchanged
                        : fixture(entry.getKey());
                String body = call.body() == null ? null : call.body().replace("NAME", fixture.name());
                ApiClient.Reply reply = clients.get(caller.name()).send(method, call.path().apply(fixture), body);
                String expected = expected(call, caller);
                // The access check's refusals; a route's own 401 (a callback's bad token) is the route answering.
                String got = (reply.status() == 401 && "unauthorized".equals(reply.error()))
                        || (reply.status() == 403 && "forbidden".equals(reply.error())) ? "refused"
                        : reply.status() == 404 && call.teamResource() ? "not-found" : "allowed";
                if (!expected.equals(got)) {
                    wrong.add(entry.getKey() + " by " + caller.name() + ": expected " + expected + ", got "
                            + reply.status() + " " + reply.text());
                }
                if (!"allowed".equals(expected) && call.teamResource() && !"GET".equals(method)) {
                    // Refused: the job and its instance are as they were.
                    assertEquals(200, admin.get("/api/jobs/" + fixture.jobId()).status(), entry.getKey());
                    ApiClient.Reply instance = admin.get("/api/instances/" + fixture.instanceId());
                    assertEquals("WAITING", instance.json().get("status").asText(), entry.getKey());
                    assertNamedUnchanged(entry.getKey(), fixture);
                }
            }
        }
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
    }

    /** A refused change of a calendar or pool left it as the fixture made it. */
    private static void assertNamedUnchanged(String route, Fixture fixture) {
        if (route.contains("/api/calendars/{name}")) {
            ApiClient.Reply calendar = admin.get(inTeam("/api/calendars/" + fixture.name()));
            assertEquals(200, calendar.status(), route);
            assertEquals(0, calendar.json().get("excludedWeekdays").size(), route);
        }
        if (route.contains("/api/pools/{name}")) {
            ApiClient.Reply pool = admin.get(inTeam("/api/pools/" + fixture.name()));
            assertEquals(200, pool.status(), route);
            assertEquals(2, pool.json().get("maxConcurrent").asInt(), route);
        }
    }

    /** What the policy says {@code caller} gets on {@code call}. */
    private static String expected(Call call, CallerSpec caller) {
        RouteAccess access = call.access();
        if (access == RouteAccess.OPEN || access == RouteAccess.HEALTH) {
            return "allowed"; // HEALTH: open by default (--open-health)
        }
        if ("none".equals(caller.namespace())) {
            return "refused";
        }
        if (!caller.role().covers(access.role()) || (access.everyNamespace() && caller.namespace() != null)) {
            return "refused";
        }
        if (call.teamResource() && caller.namespace() != null && !caller.namespace().equals(TEAM)) {
            return "not-found";
        }
        return "allowed";
    }

    /** Every change through the API leaves an audit entry: the route, the token's name, the status answered. */
    @Test
    void everyMutatingRoute_isAudited() {
        ApiClient all = clients.get("all-admin");
        List<String> missing = new ArrayList<>();
        for (Map.Entry<String, Call> entry : TABLE.entrySet()) {
            String method = entry.getKey().substring(0, entry.getKey().indexOf(' '));
            Call call = entry.getValue();
            if ("GET".equals(method) || call.access() == RouteAccess.OPEN) {
                continue;
            }
            Fixture fixture = fixture(entry.getKey());
            String body = call.body() == null ? null : call.body().replace("NAME", fixture.name() + "x");
            ApiClient.Reply reply = all.send(method, call.path().apply(fixture), body);
            // A refused call's entry is written without being waited for: look until it is there.
            com.fasterxml.jackson.databind.JsonNode[] newest = new com.fasterxml.jackson.databind.JsonNode[1];
            try {
                dev.tickwheel.fixtures.Poll.until("the entry of " + entry.getKey(), java.time.Duration.ofSeconds(10),
                        () -> {
                            newest[0] = admin.get("/api/audit?actor=all-admin&limit=1").json().get("items").get(0);
                            return newest[0] != null && entry.getKey().equals(newest[0].get("action").asText())
                                    && newest[0].get("status").asInt() == reply.status();
                        });
            } catch (IllegalStateException e) {
                missing.add(entry.getKey() + " (answered " + reply.status() + "): newest entry " + newest[0]);
            }
        }
        assertTrue(missing.isEmpty(), String.join("\n", missing));
        // The bootstrap token's own changes (the fixtures) are in the trail under its name.
        assertTrue(admin.get("/api/audit?actor=bootstrap&action=POST%20/api/jobs&limit=1").json().get("items")
                .size() == 1);
    }

    /**
     * A known token refused for its role (403) leaves an entry naming it and what it tried; a call without a valid
     * token (401) leaves none, so nobody without a token can fill the trail. A created pool's entry names it by its
     * name, its namespace in its own column.
     */
    @Test
    void aRefusalOfAKnownToken_isAudited_aCallWithoutOne_isNot() {
        Fixture f = fixture("POST /api/pools");
        ApiClient.Reply refused = clients.get("a-read").delete("/api/jobs/" + f.jobId());
        assertEquals(403, refused.status(), refused.toString());
        ApiClient.Reply anonymous = clients.get("no-token").delete("/api/jobs/" + f.jobId());
        assertEquals(401, anonymous.status(), anonymous.toString());
        ApiClient.Reply pool = clients.get("a-admin").post("/api/pools", "{\"name\": \"audited-" + f.name()
                + "\", \"maxConcurrent\": 1}");
        assertEquals(201, pool.status(), pool.toString());

        com.fasterxml.jackson.databind.JsonNode[] entry = new com.fasterxml.jackson.databind.JsonNode[1];
        dev.tickwheel.fixtures.Poll.until("the refusal's entry", java.time.Duration.ofSeconds(10), () -> {
            entry[0] = admin.get("/api/audit?actor=a-read&limit=1").json().get("items").get(0);
            return entry[0] != null;
        });
        assertEquals("DELETE /api/jobs/{id}", entry[0].get("action").asText(), entry[0].toString());
        assertEquals(403, entry[0].get("status").asInt());
        assertEquals(TEAM, entry[0].get("namespace").asText());
        assertEquals(0, admin.get("/api/audit?actor=anonymous").json().get("items").size(), "no entry for a 401");
        com.fasterxml.jackson.databind.JsonNode created = admin.get("/api/audit?actor=a-admin&action=POST%20/api/pools"
                + "&limit=1").json().get("items").get(0);
        assertEquals("pool audited-" + f.name(), created.get("target").asText(), created.toString());
        assertEquals(TEAM, created.get("namespace").asText());
    }

    @Test
    void aForeignToken_getsTheSameAnswerAsForNothing() {
        ApiClient other = clients.get("b-admin");
        Fixture f = shared();
        ApiClient.Reply foreign = other.get("/api/jobs/" + f.jobId());
        ApiClient.Reply missing = other.get("/api/jobs/" + (Long.parseLong(f.jobId()) + 999_999));
        assertEquals(404, foreign.status());
        assertEquals(missing.status(), foreign.status());
        assertEquals(missing.error(), foreign.error());
        assertNotEquals(-1, foreign.message().indexOf("does not exist"), foreign.toString());
        assertFalse(other.get("/api/instances").text().contains(f.instanceId()), "a foreign list hides it");
        assertFalse(other.get("/api/jobs").text().contains(f.jobId()), "a foreign list hides it");
    }

    private static List<ApiRoute> routes() {
        return new ApiRoutes(app.engine(), BOOTSTRAP, false, () -> "", true).routes();
    }

    private static Fixture sharedFixture;

    /** One fixture with every part, for the reads. */
    private static synchronized Fixture shared() {
        if (sharedFixture == null) {
            sharedFixture = fixture("GET /api/calendars/{name} /api/pools/{name} /api/workflows/{id} /api/tokens/{id}");
        }
        return sharedFixture;
    }

    /**
     * A job and a waiting instance (key {@code k}) of team-a, and what {@code route} names besides: a calendar or a pool
     * named {@code name}, a workflow over the job with a run, a READ token of team-a. All new.
     */
    private static Fixture fixture(String route) {
        String n = "f" + fresh.incrementAndGet();
        ApiClient.Reply job = admin.post("/api/jobs", JOB_BODY.replace("\"j\"", "\"" + n + "\"")
                .replace("{\"name\"", "{\"namespace\": \"" + TEAM + "\", \"name\""));
        assertEquals(201, job.status(), job.toString());
        String jobId = job.json().get("id").asText();
        ApiClient.Reply run = admin.post("/api/jobs/" + jobId + "/run", "{\"key\": \"k\", \"delayMs\": 600000}");
        assertEquals(201, run.status(), run.toString());
        if (route.contains("/api/calendars/{name}")) {
            assertEquals(201, admin.post("/api/calendars", "{\"name\": \"" + n + "\", \"namespace\": \"" + TEAM
                    + "\"}").status());
        }
        if (route.contains("/api/pools/{name}")) {
            assertEquals(201, admin.post("/api/pools", "{\"name\": \"" + n + "\", \"maxConcurrent\": 2,"
                    + " \"namespace\": \"" + TEAM + "\"}").status());
        }
        String workflowId = null;
        String runId = null;
        if (route.contains("/api/workflows/{id}") || route.contains("/api/workflow-runs/")) {
            ApiClient.Reply workflow = admin.post("/api/workflows", "{\"name\": \"" + n + "\", \"nodes\":"
                    + " [{\"id\": \"a\", \"jobId\": \"" + jobId + "\"}], \"edges\": []}");
            assertEquals(201, workflow.status(), workflow.toString());
            workflowId = workflow.json().get("id").asText();
            ApiClient.Reply wfRun = admin.post("/api/workflows/" + workflowId + "/run", "{}");
            assertEquals(201, wfRun.status(), wfRun.toString());
            runId = wfRun.json().get("id").asText();
        }
        String tokenId = null;
        if (route.contains("/api/tokens/{id}")) {
            ApiClient.Reply token = admin.post("/api/tokens", "{\"name\": \"tok-" + n + "\", \"namespace\": \""
                    + TEAM + "\", \"role\": \"READ\"}");
            assertEquals(201, token.status(), token.toString());
            tokenId = token.json().get("id").asText();
        }
        return new Fixture(jobId, run.json().get("instanceId").asText(), "k", n, workflowId, runId, tokenId);
    }
}
