package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.server.app.TickwheelApplication;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.support.ui.Select;

/**
 * The console against a server with a bootstrap token, where reads need it too (issue 23): without a token the console
 * shows its login state instead of the page (no navigation, no half-drawn view); a wrong token is answered with the
 * server's message; the right one (Enter) names the caller in the header and draws the page the address names, whose
 * actions then work; the token is kept for the browser tab (sessionStorage) across a reload, until "log out", which
 * returns to the login state and forgets it. A token revoked while the console uses it leads back to the login state.
 *
 * <p>And the console shows only what the token's role and namespace allow. With a namespace "payments", a job in it and
 * one in "default", and tokens made over HTTP:
 * <ul>
 *   <li>READ of payments: its job only, with its namespace; no create, edit, delete, run, enable/disable, cancel or
 *       rerun control drawn; its namespace's workflows without New workflow and its namespace's pools; no tokens
 *       or audit link, and those pages say why instead;</li>
 *   <li>OPERATE of payments: run, enable/disable, cancel and rerun, but no job create, edit or delete;</li>
 *   <li>ADMIN of every namespace: a namespace filter on the jobs list and a namespace input on the job form; on the
 *       tokens page it creates a token whose secret is shown once and works over HTTP, then revokes it (HTTP: 401), and
 *       the audit page lists both changes under the admin's name, and the operator's under the operator's.</li>
 * </ul>
 */
class ConsoleAuthBrowserTest {

    private static final String TOKEN = "s3cret-console-token";
    private static final String NAMESPACE = "payments";

    @TempDir
    Path dir;

    private TickwheelApplication app;
    private ApiClient root;
    private ConsolePage console;

    @BeforeEach
    void start() throws Exception {
        app = TestServers.start(dir.resolve("store"), TOKEN, false);
        root = new ApiClient(app.baseUrl()).withToken(TOKEN);
        console = ConsolePage.start(dir.resolve("chromium-profile"), app.baseUrl(), null);
    }

    @AfterEach
    void stop() throws Exception {
        ConsolePage.closeAll(console, app);
    }

    @Test
    void readsNeedTheToken_loginState_wrongTokenShowsTheMessage_rightOneDrawsThePage_logOutForgetsIt() {
        String jobId = createJob("guarded", null);
        String row = "#jobs tr[data-job-id='" + jobId + "']";

        console.load("#/jobs");
        assertTrue(console.shown("#login-form"), "the login state, not the jobs page");
        assertFalse(console.shown("#jobs"), "no half-drawn page behind it");
        assertFalse(console.shown("header nav"), "no navigation before a login");
        assertFalse(console.shown("#logout"));
        assertFalse(console.shown("#login-error"), "no error before a token was typed");

        ApiClient.Reply refused = new ApiClient(app.baseUrl()).withToken("not-the-token").get("/api/whoami");
        assertEquals(401, refused.status(), refused.toString());
        console.type("#login-token", "not-the-token");
        console.click("#login-submit");
        console.awaitText("#login-error", refused.message());
        assertEquals("#/jobs", console.hash());
        assertFalse(console.shown("#jobs"));

        assertEquals("bootstrap · ADMIN · every namespace", console.logIn(TOKEN));
        assertFalse(console.shown("#login-form"));
        assertEquals("#/jobs", console.hash(), "the page the address named");
        assertEquals("guarded", console.text(row + " td.job-name"));
        assertEquals("default", console.text(row + " td.job-namespace"));
        assertTrue(console.shown("header nav a[data-path='/tokens']"), "an admin of every namespace sees every page");
        assertTrue(console.shown("header nav a[data-path='/pools']"));
        console.click(row + " button.toggle");
        console.awaitText(row + " td.job-enabled", "no");
        assertFalse(root.get("/api/jobs/" + jobId).json().get("enabled").asBoolean());

        // The token stays for this tab: after a reload the page is drawn at once, and actions carry it.
        console.load("#/jobs/" + jobId);
        assertFalse(console.shown("#login-form"));
        assertEquals("bootstrap · ADMIN · every namespace", console.text("#whoami"));
        assertEquals("default", console.text("dd.job-namespace"));
        console.click("button.toggle");
        console.awaitText("dd.job-enabled", "yes");
        assertTrue(root.get("/api/jobs/" + jobId).json().get("enabled").asBoolean());

        console.click("#logout");
        console.until(() -> "log out returns to the login state", b -> console.shown("#login-form"));
        console.awaitReady();
        assertFalse(console.shown("#whoami"));
        assertFalse(console.shown("header nav"));
        console.load("#/jobs/" + jobId);
        assertTrue(console.shown("#login-form"), "the token is forgotten: a reload asks again");
        assertTrue(browserHasNoToken());
    }

    @Test
    void tokenRevokedWhileInUse_theNextCallLeadsBackToTheLoginState_withTheServersMessage() {
        JsonNode made = createToken("short-lived", "READ", null);
        console.load("#/instances");
        assertEquals("short-lived · READ · every namespace", console.logIn(secretOf(made)));
        assertFalse(console.shown("#login-form"));

        assertEquals(204, root.delete("/api/tokens/" + made.get("id").asText()).status());
        // The history refreshes every 2 s: its next read is refused.
        String message = console.awaitTextContaining("#login-error", "wrong, revoked or expired");
        assertTrue(console.shown("#login-form"), message);
        assertFalse(console.shown("#instances"));
        assertFalse(console.shown("header nav"));
        assertTrue(browserHasNoToken());
    }

    @Test
    void eachRole_seesOnlyItsControls_andTheAdminManagesTokensAndReadsTheAuditTrail() {
        assertEquals(201, root.post("/api/namespaces", "{\"name\": \"" + NAMESPACE + "\"}").status());
        String paymentsJob = createJob("charge cards", NAMESPACE);
        String defaultJob = createJob("nightly report", null);
        String waiting = root.post("/api/jobs/" + paymentsJob + "/run", "{\"delayMs\": 600000}").json()
                .get("instanceId").asText();
        assertEquals(201, root.post("/api/pools", "{\"name\": \"card-network\", \"maxConcurrent\": 3, \"namespace\": \""
                + NAMESPACE + "\"}").status());
        assertEquals(201, root.post("/api/pools", "{\"name\": \"reports\", \"maxConcurrent\": 1}").status());
        String reader = secretOf(createToken("payments-reader", "READ", NAMESPACE));
        String operator = secretOf(createToken("payments-operator", "OPERATE", NAMESPACE));
        String admin = secretOf(createToken("ops-admin", "ADMIN", null));

        // READ of payments.
        console.load("#/jobs");
        assertEquals("payments-reader · READ · payments", console.logIn(reader));
        String row = "#jobs tr[data-job-id='" + paymentsJob + "']";
        assertEquals(List.of("charge cards"), console.texts("#jobs td.job-name"), "its namespace's jobs only");
        assertEquals(NAMESPACE, console.text(row + " td.job-namespace"));
        assertTrue(console.shown(row + " a.history"));
        assertNone("#new-job", row + " button.toggle", row + " button.run", row + " a.edit", row + " button.delete",
                "#namespace-filter");
        assertNavigation(false);
        console.load("#/jobs/" + paymentsJob);
        console.awaitText("dd.job-namespace", NAMESPACE);
        assertNone("button.toggle", "button.run", "a.edit", "button.delete");
        console.load("#/instances/" + waiting);
        console.awaitText("#instance-status", "WAITING");
        assertNone("#cancel-instance");
        console.load("#/instances");
        assertTrue(console.shown("#instances"));
        assertNone("button.rerun-matching", "#history-filters select[name='namespace']");
        console.load("#/pools");
        console.until(() -> "the pools page", b -> console.shown("#pools"));
        assertEquals(List.of("card-network"), console.texts("#pools td.pool-name"), "its namespace's pools only");
        assertEquals(NAMESPACE, console.text("#pools tr[data-pool='card-network'] td.pool-namespace"));
        console.load("#/workflows");
        assertTrue(console.shown("#workflows"), "a namespace's token lists its namespace's workflows");
        assertNone("#new-workflow");
        console.load("#/jobs/" + defaultJob);
        console.awaitTextContaining("#view p.message.error", "does not exist");

        console.click("#logout");
        console.until(() -> "log out returns to the login state", b -> console.shown("#login-form"));
        assertNone("#whoami", "#jobs");

        // OPERATE of payments.
        console.load("#/jobs/" + paymentsJob);
        assertEquals("payments-operator · OPERATE · payments", console.logIn(operator));
        assertTrue(console.shown("button.run") && console.shown("button.toggle"), "run, enable and disable");
        assertNone("a.edit", "button.delete");
        assertNavigation(false);
        console.click("button.toggle");
        console.awaitText("dd.job-enabled", "no");
        console.load("#/jobs");
        assertNone("#new-job", row + " a.edit", row + " button.delete");
        assertTrue(console.shown(row + " button.run"));
        console.load("#/jobs/new");
        assertNone("#job-form");
        console.awaitTextContaining("#view p.message.error", "needs an ADMIN token");
        console.load("#/instances/" + waiting);
        console.click("#cancel-instance");
        console.awaitText("#instance-status", "CANCELLED");
        assertTrue(console.shown("#rerun-instance"), "a finished instance can be rerun");
        console.click("#logout");
        console.until(() -> "log out returns to the login state", b -> console.shown("#login-form"));

        // ADMIN of every namespace: every page, a namespace filter and a namespace input.
        console.load("#/jobs");
        assertEquals("ops-admin · ADMIN · every namespace", console.logIn(admin));
        assertNavigation(true);
        assertEquals(List.of("charge cards", "nightly report"), console.texts("#jobs td.job-name"));
        select("#namespace-filter").selectByValue(NAMESPACE);
        console.until(() -> "the namespace filter is applied", b -> console.hash().equals("#/jobs?namespace=payments"));
        console.awaitReady();
        assertEquals(List.of("charge cards"), console.texts("#jobs td.job-name"));
        console.click("#new-job");
        console.awaitReady();
        assertEquals("default", select("#job-form select[name='namespace']").getFirstSelectedOption().getText());

        // Tokens: create one, its secret shown once, working; then revoke it.
        console.click("header nav a[data-path='/tokens']");
        console.awaitReady();
        assertEquals("#/tokens", console.hash());
        console.type("#token-form input[name='name']", "ci-bot");
        select("#token-form select[name='role']").selectByValue("OPERATE");
        select("#token-form select[name='namespace']").selectByValue(NAMESPACE);
        console.click("#create-token");
        String secret = console.text("#new-token-secret");
        console.awaitTextContaining("#new-token .warning", "will not be shown again");
        JsonNode whoami = new ApiClient(app.baseUrl()).withToken(secret).get("/api/whoami").json();
        assertEquals("ci-bot", whoami.get("name").asText());
        assertEquals("OPERATE", whoami.get("role").asText());
        assertEquals(NAMESPACE, whoami.get("namespace").asText());
        String botId = tokenIdOf("ci-bot");
        String botRow = "#tokens tr[data-token-id='" + botId + "']";
        console.awaitText(botRow + " td.token-state", "active");
        assertEquals(NAMESPACE, console.text(botRow + " td.token-namespace"));
        assertEquals("OPERATE", console.text(botRow + " td.token-role"));
        assertFalse(console.text("#tokens").contains(secret), "the list never shows a secret");

        console.load("#/tokens");
        assertNone("#new-token-secret");
        assertFalse(console.text("body").contains(secret), "shown once: gone after the page is left");
        console.click(botRow + " button.revoke");
        assertEquals(200, new ApiClient(app.baseUrl()).withToken(secret).get("/api/whoami").status(),
                "nothing is revoked before the confirmation");
        console.click(botRow + " button.confirm-revoke");
        console.awaitText(botRow + " td.token-state", "revoked");
        assertEquals(401, new ApiClient(app.baseUrl()).withToken(secret).get("/api/whoami").status());

        // The audit trail: both changes, by the admin, newest first; and the operator's disable before them.
        console.click("header nav a[data-path='/audit']");
        console.awaitReady();
        console.type("#audit-filters input[name='actor']", "ops-admin");
        console.click("#apply-filters");
        console.until(() -> "the actor filter is applied", b -> console.hash().equals("#/audit?actor=ops-admin"));
        console.awaitReady();
        List<String> actions = console.texts("#audit td.audit-action");
        assertEquals(List.of("DELETE /api/tokens/{id}", "POST /api/tokens"), actions);
        assertEquals(List.of("ops-admin", "ops-admin"), console.texts("#audit td.audit-actor"));
        assertEquals(List.of("token " + botId, "token " + botId), console.texts("#audit td.audit-target"));
        assertTrue(console.texts("#audit td.changes").get(1).contains("\"name\":\"ci-bot\""),
                console.texts("#audit td.changes").toString());
        console.load("#/audit?actor=payments-operator");
        assertEquals(List.of("POST /api/instances/{id}/cancel", "POST /api/jobs/{id}/disable"),
                console.texts("#audit td.audit-action"));

        console.click("#logout");
        console.until(() -> "log out returns to the login state", b -> console.shown("#login-form"));
        assertNone("#audit");
    }

    private boolean browserHasNoToken() {
        return Boolean.TRUE.equals(console.script("return sessionStorage.getItem('tickwheel-token') === null;"));
    }

    private Select select(String css) {
        return new Select(console.browser().findElement(By.cssSelector(css)));
    }

    /** None of the selectors matches a shown element: the control is not drawn (or hidden), not merely disabled. */
    private void assertNone(String... selectors) {
        for (String css : selectors) {
            assertFalse(console.shown(css), css + " is shown");
        }
    }

    private void assertNavigation(boolean admin) {
        assertTrue(console.shown("header nav a[data-path='/jobs']"));
        assertTrue(console.shown("header nav a[data-path='/pools']"), "pools link: every token sees its pools");
        assertTrue(console.shown("header nav a[data-path='/workflows /workflow-runs']"), "workflows link");
        assertEquals(admin, console.shown("header nav a[data-path='/tokens']"), "tokens link");
        assertEquals(admin, console.shown("header nav a[data-path='/audit']"), "audit link");
    }

    private String createJob(String name, String namespace) {
        ApiClient.Reply created = root.post("/api/jobs", "{\"name\": \"" + name + "\","
                + (namespace == null ? "" : " \"namespace\": \"" + namespace + "\",")
                + " \"schedule\": {\"type\": \"API\"}, \"target\": {\"type\": \"WEBHOOK\","
                + " \"url\": \"http://127.0.0.1:9/hook\"}}");
        assertEquals(201, created.status(), created.toString());
        return created.json().get("id").asText();
    }

    private JsonNode createToken(String name, String role, String namespace) {
        ApiClient.Reply created = root.post("/api/tokens", "{\"name\": \"" + name + "\", \"role\": \"" + role + "\""
                + (namespace == null ? "" : ", \"namespace\": \"" + namespace + "\"") + "}");
        assertEquals(201, created.status(), created.toString());
        return created.json();
    }

    private static String secretOf(JsonNode token) {
        return token.get("secret").asText();
    }

    private String tokenIdOf(String name) {
        for (JsonNode token : root.get("/api/tokens").json().get("items")) {
            if (token.get("name").asText().equals(name)) {
                return token.get("id").asText();
            }
        }
        throw new AssertionError("no token named " + name);
    }
}
