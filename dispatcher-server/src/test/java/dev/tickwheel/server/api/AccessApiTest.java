package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.server.app.TickwheelApplication;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tokens, namespaces and the audit trail over HTTP: a token's lifecycle, what a namespace's token sees and touches
 * (and what it cannot, answered as nonexistent), and what the trail records of changes.
 */
class AccessApiTest {

    private static final String BOOTSTRAP = "bootstrap-secret";
    private static final String JOB = """
            {"name": "%s", "schedule": {"type": "API"}, "target": {"type": "WEBHOOK", "url": "http://127.0.0.1:9/x"}}""";

    @TempDir
    static Path dir;

    static TickwheelApplication app;
    static ApiClient root;

    @BeforeAll
    static void start() {
        app = TestServers.start(dir, BOOTSTRAP, false);
        root = new ApiClient(app.baseUrl()).withToken(BOOTSTRAP);
        for (String namespace : List.of("payments", "search")) {
            assertEquals(201, root.post("/api/namespaces", "{\"name\": \"" + namespace + "\"}").status());
        }
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    private static ApiClient token(String name, String namespace, String role) {
        String ns = namespace == null ? "" : ", \"namespace\": \"" + namespace + "\"";
        ApiClient.Reply created = root.post("/api/tokens", "{\"name\": \"" + name + "\", \"role\": \"" + role + "\""
                + ns + "}");
        assertEquals(201, created.status(), created.toString());
        return new ApiClient(app.baseUrl()).withToken(created.json().get("secret").asText());
    }

    @Test
    void tokenLifecycle_create_use_secretShownOnce_revoke() {
        ApiClient.Reply created = root.post("/api/tokens", "{\"name\": \"deploy-bot\", \"namespace\": \"payments\","
                + " \"role\": \"OPERATE\", \"expiresAt\": \"2099-01-01T00:00:00Z\"}");
        assertEquals(201, created.status(), created.toString());
        JsonNode token = created.json();
        String secret = token.get("secret").asText();
        assertTrue(secret.startsWith("tw_"), secret);
        assertEquals("/api/tokens/" + token.get("id").asText(), "/api/tokens/" + token.get("id").asText());
        ApiClient bot = new ApiClient(app.baseUrl()).withToken(secret);
        ApiClient.Reply whoami = bot.get("/api/whoami");
        assertEquals(200, whoami.status());
        assertEquals("deploy-bot", whoami.json().get("name").asText());
        assertEquals("payments", whoami.json().get("namespace").asText());
        assertEquals("OPERATE", whoami.json().get("role").asText());

        JsonNode shown = root.get("/api/tokens/" + token.get("id").asText()).json();
        assertTrue(shown.get("secret").isNull(), "the secret is shown once, at creation");
        assertFalse(root.get("/api/tokens").text().contains(secret));
        assertNotNull(shown.get("lastUsedAt").asText(null), "its use was recorded");
        assertTrue(shown.get("active").asBoolean());

        assertEquals(204, root.delete("/api/tokens/" + token.get("id").asText()).status());
        ApiClient.Reply refused = bot.get("/api/whoami");
        assertEquals(401, refused.status());
        assertEquals("unauthorized", refused.error());
        JsonNode revoked = root.get("/api/tokens/" + token.get("id").asText()).json();
        assertFalse(revoked.get("active").asBoolean());
        assertNotNull(revoked.get("revokedAt").asText(null));
    }

    @Test
    void tokenCreation_refusals_nameTheirField() {
        assertField(root.post("/api/tokens", "{\"role\": \"READ\"}"), 400, "name");
        assertField(root.post("/api/tokens", "{\"name\": \"r\", \"role\": \"ROOT\"}"), 400, "role");
        assertField(root.post("/api/tokens", "{\"name\": \"r\", \"role\": \"READ\", \"namespace\": \"nowhere\"}"),
                400, "namespace");
        assertField(root.post("/api/tokens", "{\"name\": \"r\", \"role\": \"READ\", \"expiresAt\":"
                + " \"2001-01-01T00:00:00Z\"}"), 400, "expiresAt");
        token("taken", null, "READ");
        assertField(root.post("/api/tokens", "{\"name\": \"taken\", \"role\": \"READ\"}"), 409, "name");
        ApiClient paymentsAdmin = token("payments-admin", "payments", "ADMIN");
        assertEquals(403, paymentsAdmin.post("/api/tokens", "{\"name\": \"wide\", \"role\": \"READ\"}").status(),
                "a namespace's admin cannot make a token of every namespace");
        assertEquals(404, paymentsAdmin.post("/api/tokens", "{\"name\": \"other\", \"role\": \"READ\", \"namespace\":"
                + " \"search\"}").status(), "nor one of another namespace");
        assertEquals(201, paymentsAdmin.post("/api/tokens", "{\"name\": \"own\", \"role\": \"READ\", \"namespace\":"
                + " \"payments\"}").status());
        assertField(root.post("/api/namespaces", "{\"name\": \"payments\"}"), 409, "name");
        assertField(root.post("/api/namespaces", "{\"name\": \"Not Valid\"}"), 400, "name");
    }

    @Test
    void namespaceToken_seesAndTouchesOnlyItsNamespace_byIdByKeyAndInLists() {
        ApiClient payments = token("payments-operator", "payments", "ADMIN");
        ApiClient search = token("search-operator", "search", "ADMIN");
        ApiClient.Reply mine = payments.post("/api/jobs", JOB.formatted("payments job"));
        assertEquals(201, mine.status(), mine.toString());
        assertEquals("payments", mine.json().get("namespace").asText(), "from the token");
        String jobId = mine.json().get("id").asText();
        ApiClient.Reply run = payments.post("/api/jobs/" + jobId + "/run", "{\"key\": \"order-1\", \"delayMs\":"
                + " 600000}");
        String instanceId = run.json().get("instanceId").asText();

        // Another namespace's token: every way in is a 404, and nothing changes.
        assertEquals(404, search.get("/api/jobs/" + jobId).status());
        assertEquals(404, search.get("/api/instances/" + instanceId).status());
        assertEquals(404, search.get("/api/jobs/" + jobId + "/runs/order-1").status());
        assertEquals(404, search.post("/api/instances/" + instanceId + "/cancel", null).status());
        assertEquals(404, search.post("/api/jobs/" + jobId + "/runs/order-1/cancel", null).status());
        assertEquals(404, search.get("/api/instances?jobId=" + jobId).status());
        JsonNode bulk = search.post("/api/instances/cancel", "{\"ids\": [" + instanceId + "]}").json();
        assertEquals("NOT_FOUND", bulk.get("results").get(0).get("outcome").asText());
        assertEquals(0, search.post("/api/instances/rerun", "{\"dryRun\": true}").json().get("matched").asInt());
        assertFalse(search.get("/api/jobs").text().contains(jobId));
        assertFalse(search.get("/api/instances").text().contains(instanceId));
        assertEquals(404, search.get("/api/jobs?namespace=payments").status());
        assertEquals("WAITING", payments.get("/api/instances/" + instanceId).json().get("status").asText());

        // Its own token: all of it.
        assertTrue(payments.get("/api/jobs").text().contains(jobId));
        assertTrue(payments.get("/api/instances").text().contains(instanceId));
        assertEquals(200, payments.post("/api/jobs/" + jobId + "/runs/order-1/cancel", null).status());

        // A token of every namespace sees both, and filters by namespace.
        assertTrue(root.get("/api/jobs?namespace=payments").text().contains(jobId));
        assertFalse(root.get("/api/jobs?namespace=search").text().contains(jobId));
        assertTrue(root.get("/api/instances?namespace=payments").text().contains(instanceId));

        // A job's namespace is given at creation and never changes.
        assertField(root.post("/api/jobs", JOB.formatted("x").replace("{\"name\"",
                "{\"namespace\": \"nowhere\", \"name\"")), 400, "namespace");
        assertEquals(404, payments.post("/api/jobs", JOB.formatted("x").replace("{\"name\"",
                "{\"namespace\": \"search\", \"name\"")).status());
        assertField(payments.put("/api/jobs/" + jobId, JOB.formatted("moved").replace("{\"name\"",
                "{\"namespace\": \"search\", \"name\"")), 400, "namespace");
        ApiClient.Reply namespaced = root.post("/api/jobs", JOB.formatted("by root").replace("{\"name\"",
                "{\"namespace\": \"search\", \"name\""));
        assertEquals("search", namespaced.json().get("namespace").asText());
        assertEquals(200, search.get("/api/jobs/" + namespaced.json().get("id").asText()).status());
    }

    @Test
    void workflows_areInTheNamespaceOfTheirJobs() {
        ApiClient payments = token("payments-flows", "payments", "ADMIN");
        ApiClient search = token("search-flows", "search", "ADMIN");
        String paymentsJob = payments.post("/api/jobs", JOB.formatted("charge")).json().get("id").asText();
        String searchJob = search.post("/api/jobs", JOB.formatted("index")).json().get("id").asText();
        String flow = "{\"name\": \"%s\", \"nodes\": [{\"id\": \"a\", \"jobId\": \"%s\"}%s], \"edges\": []%s}";

        ApiClient.Reply created = payments.post("/api/workflows", flow.formatted("pay", paymentsJob, "",
                ", \"schedule\": {\"type\": \"CRON\", \"expression\": \"0 0 3 * * ?\"}"));
        assertEquals(201, created.status(), created.toString());
        String workflowId = created.json().get("id").asText();
        String triggerJob = created.json().get("triggerJobId").asText();
        assertEquals("payments", payments.get("/api/jobs/" + triggerJob).json().get("namespace").asText(),
                "the trigger job is made in the workflow's namespace");
        ApiClient.Reply run = payments.post("/api/workflows/" + workflowId + "/run", "{}");
        assertEquals(201, run.status(), run.toString());
        String runId = run.json().get("id").asText();

        assertEquals(404, search.get("/api/workflows/" + workflowId).status());
        assertEquals(404, search.post("/api/workflows/" + workflowId + "/run", "{}").status());
        assertEquals(404, search.get("/api/workflow-runs/" + runId).status());
        assertEquals(404, search.post("/api/workflow-runs/" + runId + "/cancel", null).status());
        assertFalse(search.get("/api/workflows").text().contains(workflowId));
        assertTrue(payments.get("/api/workflows").text().contains(workflowId));
        assertEquals(200, payments.get("/api/workflow-runs/" + runId).status());

        assertField(payments.post("/api/workflows", flow.formatted("theirs", searchJob, "", "")), 400,
                "nodes[0].jobId");
        assertField(root.post("/api/workflows", flow.formatted("mixed", paymentsJob,
                ", {\"id\": \"b\", \"jobId\": \"" + searchJob + "\"}", "")), 400, "nodes[1].jobId");
        assertTrue(root.get("/api/workflows?namespace=payments").text().contains(workflowId));
        assertFalse(root.get("/api/workflows?namespace=search").text().contains(workflowId));
    }

    /**
     * Calendars and pools are per namespace: two teams each have a "holidays" and a "partner-api" of their own, a job
     * shares those of its namespace only (by local name), and no spelling of a path or a job field reaches another
     * namespace's.
     */
    @Test
    void calendarsAndPools_belongToNamespaces_andJobsNameTheirOwnOnly() {
        ApiClient payments = token("payments-cal-admin", "payments", "ADMIN");
        ApiClient search = token("search-cal-admin", "search", "ADMIN");
        ApiClient searchReader = token("search-cal-reader", "search", "READ");
        ApiClient.Reply paymentsHolidays = payments.post("/api/calendars", "{\"name\": \"holidays\","
                + " \"excludedWeekdays\": [\"SUNDAY\"]}");
        assertEquals(201, paymentsHolidays.status(), paymentsHolidays.toString());
        assertEquals("payments", paymentsHolidays.json().get("namespace").asText());
        assertEquals("holidays", paymentsHolidays.json().get("name").asText());
        assertEquals(201, search.post("/api/calendars", "{\"name\": \"holidays\", \"excludedWeekdays\":"
                + " [\"SATURDAY\"]}").status(), "the same name in another namespace is another calendar");
        assertEquals(201, payments.post("/api/pools", "{\"name\": \"partner-api\", \"maxConcurrent\": 4}").status());
        assertEquals(201, search.post("/api/pools", "{\"name\": \"partner-api\", \"maxConcurrent\": 9}").status());
        assertField(payments.post("/api/pools", "{\"name\": \"partner-api\", \"maxConcurrent\": 1}"), 409, "name");

        // Each token reads its own by name and in lists; the other's is answered as missing.
        assertEquals("SATURDAY", searchReader.get("/api/calendars/holidays").json().get("excludedWeekdays").get(0)
                .asText());
        assertEquals(9, searchReader.get("/api/pools/partner-api").json().get("maxConcurrent").asInt());
        ApiClient.Reply foreign = searchReader.get("/api/calendars/holidays?namespace=payments");
        assertEquals(404, foreign.status(), foreign.toString());
        assertEquals(404, search.delete("/api/pools/partner-api?namespace=payments").status());
        assertEquals(404, search.get("/api/calendars/payments%2Fholidays").status(),
                "a qualified name in the path is no way into another namespace");
        assertEquals(List.of("search"), namespacesOf(searchReader.get("/api/calendars")));
        assertEquals(List.of("search"), namespacesOf(searchReader.get("/api/pools")));
        assertEquals(403, searchReader.post("/api/pools", "{\"name\": \"r\", \"maxConcurrent\": 1}").status());

        // A job names the calendar and pool of its own namespace by local name, and shows them so.
        ApiClient.Reply job = payments.post("/api/jobs", JOB.formatted("payroll").replace("{\"name\"",
                "{\"calendar\": \"holidays\", \"pool\": \"partner-api\", \"name\"")
                .replace("\"type\": \"API\"", "\"type\": \"CRON\", \"expression\": \"0 0 9 * * ?\""));
        assertEquals(201, job.status(), job.toString());
        assertEquals("holidays", job.json().get("calendar").asText());
        assertEquals("partner-api", job.json().get("pool").asText());
        String jobId = job.json().get("id").asText();
        assertEquals(409, payments.delete("/api/pools/partner-api").status(), "payments' pool is in use");
        assertEquals(204, search.delete("/api/pools/partner-api").status(), "search's is not");
        assertEquals(201, search.post("/api/pools", "{\"name\": \"partner-api\", \"maxConcurrent\": 9}").status());
        assertField(search.post("/api/jobs", JOB.formatted("sneaky").replace("{\"name\"",
                "{\"pool\": \"payments/partner-api\", \"name\"")), 400, "pool");
        assertField(search.post("/api/jobs", JOB.formatted("sneaky").replace("{\"name\"",
                "{\"pool\": \"only-in-payments\", \"name\"")), 400, "pool");
        // The default namespace's job cannot reach a namespace's pool through its stored form either.
        assertField(root.post("/api/jobs", JOB.formatted("sneaky").replace("{\"name\"",
                "{\"pool\": \"search/partner-api\", \"name\"")), 400, "pool");

        // A token of every namespace names the namespace: in a creation's body, and with ?namespace= on a path.
        ApiClient.Reply rootPool = root.post("/api/pools", "{\"name\": \"batch\", \"maxConcurrent\": 2,"
                + " \"namespace\": \"search\"}");
        assertEquals(201, rootPool.status(), rootPool.toString());
        assertEquals("search", rootPool.json().get("namespace").asText());
        assertEquals(404, root.get("/api/pools/batch").status(), "without ?namespace=, the default namespace's");
        assertEquals(2, root.get("/api/pools/batch?namespace=search").json().get("maxConcurrent").asInt());
        assertField(root.put("/api/pools/batch?namespace=search", "{\"maxConcurrent\": 3, \"namespace\":"
                + " \"payments\"}"), 400, "namespace");
        assertEquals(3, root.put("/api/pools/batch?namespace=search", "{\"maxConcurrent\": 3}").json()
                .get("maxConcurrent").asInt());
        assertTrue(namespacesOf(root.get("/api/pools")).containsAll(List.of("payments", "search")));
        assertEquals(List.of("payments"), namespacesOf(root.get("/api/pools?namespace=payments")));
        // The change is audited in the pool's namespace.
        JsonNode entry = root.get("/api/audit?action=PUT%20/api/pools&limit=1").json().get("items").get(0);
        assertEquals("search", entry.get("namespace").asText(), entry.toString());
        assertEquals(200, payments.get("/api/jobs/" + jobId).status());
    }

    private static List<String> namespacesOf(ApiClient.Reply list) {
        assertEquals(200, list.status(), list.toString());
        List<String> namespaces = new ArrayList<>();
        list.json().get("items").forEach(item -> {
            if (!namespaces.contains(item.get("namespace").asText())) {
                namespaces.add(item.get("namespace").asText());
            }
        });
        return namespaces;
    }

    @Test
    void audit_recordsChanges_withTheFieldsChanged_andSecretsMasked() {
        ApiClient editor = token("editor", "payments", "ADMIN");
        String secret = "sixteen-chars-secret-1";
        ApiClient.Reply created = editor.post("/api/jobs", JOB.formatted("audited").replace("}}",
                "}, \"signingSecret\": \"" + secret + "\"}"));
        assertEquals(201, created.status(), created.toString());
        String jobId = created.json().get("id").asText();
        assertEquals(200, editor.put("/api/jobs/" + jobId, JOB.formatted("audited v2").replace("}}",
                "}, \"signingSecret\": \"another-secret-value-2\"}")).status());
        assertEquals(400, editor.put("/api/jobs/" + jobId, "{\"name\": \"\"}").status());
        assertEquals(204, editor.delete("/api/jobs/" + jobId).status());

        // The refused PUT's entry is written without being waited for: look until all four are there.
        dev.tickwheel.fixtures.Poll.until("four entries of editor", java.time.Duration.ofSeconds(10),
                () -> items(root.get("/api/audit?actor=editor")).size() == 4);
        List<JsonNode> entries = items(root.get("/api/audit?actor=editor"));
        assertEquals(List.of("DELETE /api/jobs/{id}", "PUT /api/jobs/{id}", "PUT /api/jobs/{id}", "POST /api/jobs"),
                entries.stream().map(e -> e.get("action").asText()).toList(), "newest first");
        assertEquals(List.of(204, 400, 200, 201), entries.stream().map(e -> e.get("status").asInt()).toList());
        for (JsonNode entry : entries) {
            assertEquals("job " + jobId, entry.get("target").asText());
            assertEquals("payments", entry.get("namespace").asText());
        }
        JsonNode creation = entries.get(3).get("changes");
        assertEquals("audited", creation.get("name").asText(), "a creation: the fields given");
        assertEquals("***", creation.get("signingSecret").asText());
        JsonNode update = entries.get(2).get("changes");
        assertEquals("audited", update.get("name").get("from").asText(), "an update: each changed field");
        assertEquals("audited v2", update.get("name").get("to").asText());
        assertEquals("***", update.get("signingSecret").asText());
        assertFalse(update.has("target"), "unchanged fields are left out");
        assertTrue(entries.get(1).get("changes").isNull(), "a refused change changed nothing");
        String everything = root.get("/api/audit?limit=1000").text();
        assertFalse(everything.contains(secret), "no secret anywhere in the trail");
        assertFalse(everything.contains("another-secret-value-2"));
        assertFalse(everything.contains(BOOTSTRAP));

        // A namespace's admin reads its own namespace's entries only; filters combine.
        ApiClient searchAdmin = token("search-auditor", "search", "ADMIN");
        assertFalse(searchAdmin.get("/api/audit?limit=1000").text().contains("\"editor\""));
        assertEquals(404, searchAdmin.get("/api/audit?namespace=payments").status());
        assertEquals(1, items(root.get("/api/audit?actor=editor&action=delete")).size());
        assertEquals(4, items(root.get("/api/audit?target=job%20" + jobId)).size());
        assertEquals(0, items(root.get("/api/audit?actor=editor&to=" + Instant.parse("2001-01-01T00:00:00Z")))
                .size());
        assertEquals(403, token("reader", null, "READ").get("/api/audit").status(), "ADMIN only");
    }

    @Test
    void audit_pagesWithTheCursor() {
        ApiClient pager = token("pager", null, "ADMIN");
        for (int i = 0; i < 7; i++) {
            assertEquals(201, pager.post("/api/jobs", JOB.formatted("page " + i)).status());
        }
        List<String> seen = new ArrayList<>();
        String cursor = null;
        do {
            JsonNode page = root.get("/api/audit?actor=pager&limit=3" + (cursor == null ? "" : "&cursor=" + cursor))
                    .json();
            page.get("items").forEach(e -> seen.add(e.get("changes").get("name").asText()));
            cursor = page.get("nextCursor").isNull() ? null : page.get("nextCursor").asText();
        } while (cursor != null);
        assertEquals(List.of("page 6", "page 5", "page 4", "page 3", "page 2", "page 1", "page 0"), seen);
    }

    private static List<JsonNode> items(ApiClient.Reply reply) {
        assertEquals(200, reply.status(), reply.toString());
        List<JsonNode> items = new ArrayList<>();
        reply.json().get("items").forEach(items::add);
        return items;
    }

    private static void assertField(ApiClient.Reply reply, int status, String field) {
        assertEquals(status, reply.status(), reply.toString());
        assertEquals(field, reply.json().get("field").asText(null), reply.toString());
    }
}
