package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.server.Await;
import dev.tickwheel.server.app.TickwheelApplication;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.Select;

/**
 * The console as an operator uses it, in headless Chromium with real clicks and typing, against a whole server (H2)
 * and real webhook endpoints: create a job from the form, run it and follow its instance to SUCCEEDED; cancel a
 * waiting instance from its page; read a failed call's error; see a 400 next to the input it names. The browser runs
 * in a zone far from UTC, so that every conversion between its zone and the API's UTC is exercised.
 */
class ConsoleBrowserTest {

    /** UTC-03:30 (UTC-02:30 in summer): a half-hour offset catches a conversion that only handles whole hours. */
    static final String BROWSER_ZONE = "America/St_Johns";

    @TempDir
    Path dir;

    private final WebhookReceiver receiver = new WebhookReceiver();
    private TickwheelApplication app;
    private ApiClient api;
    private ConsolePage console;
    private WebDriver browser;

    @BeforeEach
    void start() throws Exception {
        app = TestServers.start(dir.resolve("store"), null, false);
        api = new ApiClient(app.baseUrl());
        console = ConsolePage.start(dir.resolve("chromium-profile"), app.baseUrl(), BROWSER_ZONE);
        browser = console.browser();
    }

    @AfterEach
    void stop() throws Exception {
        ConsolePage.closeAll(console, app, receiver);
    }

    @Test
    void createJobFromTheForm_runIt_instanceSucceedsInHistory_andItsPageShowsIt() {
        // A name with markup: the console must show it as text, never run it.
        String name = "report <b>ops</b> <img src=x onerror=\"window.pwned=1\">";
        console.load("#/jobs");
        console.click("#new-job");
        console.awaitReady();
        assertEquals("#/jobs/new", console.hash());
        console.type("input[name='name']", name);
        new Select(browser.findElement(By.name("schedule.type"))).selectByValue("API");
        assertFalse(browser.findElement(By.name("schedule.expression")).isDisplayed(), "a cron input for an API job");
        console.type("input[name='target.url']", receiver.url());
        console.type("textarea[name='params']", "{\"to\": \"ops\"}");
        console.type("input[name='retry.maxAttempts']", "2");
        console.type("input[name='retry.delaysMs']", "1000, 60000");
        new Select(browser.findElement(By.name("retry.jitter"))).selectByValue("FULL");
        console.click("#save-job");

        console.until(() -> "the job page opens", b -> console.hash().matches("#/jobs/\\d+"));
        console.awaitReady();
        String jobId = console.hash().substring("#/jobs/".length());
        console.awaitText("#job-title", name);
        JsonNode job = api.get("/api/jobs/" + jobId).json();
        assertEquals(name, job.get("name").asText());
        assertEquals("API", job.at("/schedule/type").asText());
        assertEquals("ops", job.at("/params/to").asText());
        assertEquals(2, job.at("/retry/maxAttempts").asInt());
        assertTrue(job.at("/retry/backoffMs").isMissingNode() || job.at("/retry/backoffMs").asLong() == 0,
                "an empty backoff input is left out: the server's default");
        assertTrue(job.get("timeoutMs").isNull(), "an empty timeout input is left out: the server's default");
        assertEquals("[1000,60000]", job.at("/retry/delaysMs").toString(), job.toString());
        assertEquals("FULL", job.at("/retry/jitter").asText());
        console.awaitTextContaining("dd.job-retry", "2 attempts, after 1.000 s, 1 min, full jitter");

        console.click("button.run");
        console.type(".run-form textarea[name='params']", "{\"run\": 1}");
        console.click(".run-form .run-submit");
        String instanceId = console.text(".run-result a.instance-link");
        assertTrue(instanceId.matches("\\d+"), instanceId);

        console.click("a.history");
        console.awaitReady();
        assertEquals("#/instances?jobId=" + jobId, console.hash());
        String row = "#instances tr[data-instance-id='" + instanceId + "']";
        console.awaitText(row + " td.status", "SUCCEEDED");
        assertEquals(name, console.text(row + " td.job"));
        console.click(row + " td.status");

        console.awaitReady();
        assertEquals("#/instances/" + instanceId, console.hash());
        console.awaitText("#instance-status", "SUCCEEDED");
        assertEquals(name, console.text("dd.job a"));
        assertEquals("1", console.text("dd.attempt"));
        assertTrue(console.text("pre.params").contains("\"run\": 1"), console.text("pre.params"));
        assertTrue(browser.findElements(By.id("cancel-instance")).isEmpty(), "no Cancel on a finished instance");
        assertEquals(List.of("1 SUCCEEDED"), console.texts("#attempts tbody tr").stream()
                .map(r -> r.split(" ")[0] + " " + r.split(" ")[1]).toList());
        assertEquals(1, receiver.deliveriesOf(instanceId));
        assertEquals(Boolean.FALSE, console.script("return window.pwned === 1;"));

        // Every time is shown in the browser's zone and carries its UTC ISO form on hover.
        String expectedIso = api.get("/api/instances/" + instanceId).json().get("expectedTriggerTime").asText();
        String title = browser.findElement(By.cssSelector("dd.expected time")).getAttribute("title");
        assertEquals(expectedIso, title);
        LocalDateTime local = LocalDateTime.ofInstant(Instant.parse(expectedIso), ZoneId.of(BROWSER_ZONE));
        String shown = console.text("dd.expected time");
        assertTrue(shown.contains(local.format(DateTimeFormatter.ofPattern("h:mm:ss"))), shown + " for " + local);
    }

    @Test
    void keyedRun_itsPageShowsTheCallersKey() {
        String jobId = createJob("keyed", receiver.url());
        String key = "order <b>42</b>";
        String instanceId = api.post("/api/jobs/" + jobId + "/run",
                "{\"key\": \"" + key + "\", \"delayMs\": 600000}").json().get("instanceId").asText();

        console.load("#/instances/" + instanceId);

        console.awaitText("#instance-status", "WAITING");
        assertEquals(key, console.text("dd.key"), "shown as text, never as markup");

        api.post("/api/jobs/" + jobId + "/run", "{\"key\": \"another\", \"delayMs\": 600000}");
        console.load("#/instances?jobId=" + jobId);
        console.awaitReady();
        assertEquals(2, console.texts("#instances tbody tr").size(), "both runs of the job");
        console.type("#history-filters input[name='key']", key);
        console.click("#apply-filters");
        console.until(() -> "only the keyed run", b -> b.findElements(By.cssSelector("#instances tbody tr")).size() == 1
                && b.getCurrentUrl().contains("key="));
        assertTrue(console.text("#instances tbody tr").contains(instanceId), console.text("#instances tbody tr"));
    }

    @Test
    void waitingInstance_cancelFromItsPage_becomesCancelledAndIsNeverCalled() {
        String jobId = createJob("cancel me", receiver.url());
        console.load("#/jobs");
        String row = "#jobs tr[data-job-id='" + jobId + "']";
        console.click(row + " button.run");
        console.type(".run-form input[name='delayMs']", "600000");
        console.type(".run-form input[name='priority']", "8");
        console.click(".run-form .run-submit");
        String instanceId = console.text(".run-result a.instance-link");
        assertEquals(8, api.get("/api/instances/" + instanceId).json().get("priority").asInt(), "the run's priority");
        console.click(".run-result a.instance-link");

        console.awaitReady();
        assertEquals("#/instances/" + instanceId, console.hash());
        console.awaitText("#instance-status", "WAITING");
        assertEquals("8", console.text("dd.priority"));
        assertEquals("", console.text("dd.actual")
                .replace("—", ""), "a waiting instance has no actual trigger time");
        console.click("#cancel-instance");

        console.awaitText("#instance-status", "CANCELLED");
        console.until(() -> "the Cancel button is gone", b -> b.findElements(By.id("cancel-instance")).isEmpty());
        console.awaitTextContaining("#message", "cancelled");
        assertEquals("CANCELLED", api.get("/api/instances/" + instanceId).json().get("status").asText());
        assertEquals(0, receiver.deliveriesOf(instanceId));
    }

    @Test
    void webhookAnswers500_instanceFails_andItsPageShowsTheError() throws Exception {
        try (FailingWebhook failing = new FailingWebhook("payments backend down")) {
            ApiClient.Reply created = api.post("/api/jobs", "{\"name\": \"charge cards\", \"schedule\": {\"type\": \"API\"},"
                    + " \"target\": {\"type\": \"WEBHOOK\", \"url\": \"" + failing.url() + "\"},"
                    + " \"retry\": {\"maxAttempts\": 2, \"backoffMs\": 50}}");
            assertEquals(201, created.status(), created.toString());
            String jobId = created.json().get("id").asText();
            String instanceId = api.post("/api/jobs/" + jobId + "/run", "{}").json().get("instanceId").asText();

            console.load("#/instances");
            String row = "#instances tr[data-instance-id='" + instanceId + "']";
            console.awaitText(row + " td.status", "FAILED");
            console.click(row + " td.attempt");
            console.awaitReady();
            console.awaitText("#instance-status", "FAILED");
            String error = console.text("pre.instance-error");
            assertTrue(error.contains("answered HTTP 500"), error);
            assertTrue(error.contains("payments backend down"), error);
            assertEquals(api.get("/api/instances/" + instanceId).json().get("error").asText(), error);
            // Both attempts, the retried one with its own error.
            assertEquals(List.of("1", "2"), console.texts("#attempts tbody tr td:first-child"));
            assertEquals(List.of("RETRIED", "FAILED"), console.texts("#attempts td.outcome"));
            List<String> attemptErrors = console.texts("#attempts pre.attempt-error");
            assertEquals(2, attemptErrors.size(), attemptErrors.toString());
            assertTrue(attemptErrors.stream().allMatch(e -> e.contains("answered HTTP 500")), attemptErrors.toString());
            assertEquals("2", console.text("dd.attempt"));

            // Rerun from its page: the rerun's page opens, linked to the original.
            console.click("#rerun-instance");
            console.until(() -> "the rerun's page opens", b -> !console.hash().equals("#/instances/" + instanceId));
            console.awaitReady();
            console.awaitTextContaining("#message", "rerun of instance " + instanceId);
            assertEquals(instanceId, console.text("dd.rerun-of"));
            String rerunId = console.text("#instance-id");
            assertEquals(instanceId, api.get("/api/instances/" + rerunId).json().get("rerunOf").asText());

            // Rerun matching: a second failed run, then the job's failed instances, after a confirmation with the count.
            String second = api.post("/api/jobs/" + jobId + "/run", "{}").json().get("instanceId").asText();
            Await.until(() -> "the rerun and the second run failed", Duration.ofSeconds(30), () -> List.of(rerunId, second).stream()
                    .allMatch(id -> api.get("/api/instances/" + id).json().get("status").asText().equals("FAILED")));
            console.load("#/instances?jobId=" + jobId + "&status=FAILED");
            console.awaitReady();
            console.click("button.rerun-matching");
            console.awaitTextContaining("button.confirm-rerun", "rerun 3 finished instance(s)?");
            assertEquals(3, api.get("/api/instances?jobId=" + jobId).json().get("items").size(),
                    "nothing is rerun before the confirmation");
            console.click("button.confirm-rerun");
            console.awaitTextContaining("#message", "2 rerun(s) created of 3 finished instance(s) matched");
        }
    }

    @Test
    void badCronExpression_theServersMessageShowsNextToThatInput_thenABadRetryNextToItsOwn() {
        console.load("#/jobs/new");
        console.type("input[name='name']", "nightly");
        console.type("input[name='schedule.expression']", "nope");
        console.type("input[name='target.url']", receiver.url());
        console.click("#save-job");

        String body = "{\"name\": \"nightly\", \"enabled\": true, \"schedule\": {\"type\": \"CRON\", \"expression\": \"nope\"},"
                + " \"target\": {\"type\": \"WEBHOOK\", \"url\": \"" + receiver.url() + "\"}}";
        ApiClient.Reply refused = api.post("/api/jobs", body);
        assertEquals(400, refused.status(), refused.toString());
        console.awaitText(".field-error[data-error-for='schedule.expression']", refused.message());
        assertEquals(refused.message(), console.text("#form-error"));
        assertTrue(console.text(".field-error[data-error-for='target.url']").isEmpty());
        assertEquals("#/jobs/new", console.hash(), "a refused form stays open");

        // Fix it; a retry count out of range is now the problem, shown at its own input.
        console.type("input[name='schedule.expression']", "0 0 3 * * ?");
        console.type("input[name='retry.maxAttempts']", "0");
        console.click("#save-job");
        String message = console.awaitTextContaining(".field-error[data-error-for='retry.maxAttempts']", "maxAttempts");
        assertTrue(console.text(".field-error[data-error-for='schedule.expression']").isEmpty(), "the old error is gone");
        assertEquals(message, console.text("#form-error"));
        assertEquals(0, api.get("/api/jobs").json().get("items").size(), "nothing was written");
    }

    @Test
    void historyFilters_inTheHash_convertedBetweenTheBrowsersZoneAndUtc() {
        String jobId = createJob("filtered", receiver.url());
        String hash = "#/instances?jobId=" + jobId + "&status=FAILED&from=2026-01-10T12%3A00%3A00.000Z"
                + "&to=2026-07-01T00%3A00%3A00.000Z";
        console.load(hash);
        // 12:00 UTC is 08:30 in St. John's in January (UTC-03:30), 00:00 UTC is 21:30 the day before in July (-02:30).
        // (A datetime-local input normalizes away zero seconds.)
        assertEquals("2026-01-10T08:30", browser.findElement(By.name("from")).getAttribute("value"));
        assertEquals("2026-06-30T21:30", browser.findElement(By.name("to")).getAttribute("value"));
        assertEquals("FAILED", new Select(browser.findElement(By.name("status"))).getFirstSelectedOption().getText());
        console.awaitTextContaining(".job-filter-name", "filtered");

        // Applying the form as it is reproduces the same view; choosing a status applies at once.
        console.click("#apply-filters");
        console.awaitReady();
        assertEquals(hash, console.hash());
        new Select(browser.findElement(By.name("status"))).selectByValue("SUCCEEDED");
        console.until(() -> "the status is applied", b -> console.hash().contains("status=SUCCEEDED"));
        console.awaitReady();
        assertTrue(console.hash().contains("from=2026-01-10T12%3A00%3A00.000Z"), console.hash());

        // A range the server refuses: its message next to the input of the parameter it names.
        console.load("#/instances?from=2026-07-01T00%3A00%3A00.000Z&to=2026-01-01T00%3A00%3A00.000Z");
        ApiClient.Reply refused = api.get("/api/instances?from=2026-07-01T00:00:00.000Z&to=2026-01-01T00:00:00.000Z");
        assertEquals(400, refused.status(), refused.toString());
        assertEquals("from", refused.json().get("field").asText());
        console.awaitText(".field-error[data-error-for='from']", refused.message());

        // The job filter takes a name too: one match becomes its id in the hash; none is said at the input.
        createJob("other job", receiver.url());
        console.load("#/instances");
        console.type("input[name='job']", "no such job");
        console.click("#apply-filters");
        console.awaitText(".field-error[data-error-for='jobId']", "no job name contains \"no such job\"");
        console.type("input[name='job']", "filtered");
        console.click("#apply-filters");
        console.until(() -> "the job filter is applied", b -> console.hash().equals("#/instances?jobId=" + jobId));
        console.awaitReady();
        console.awaitText(".job-filter-name", "filtered");
    }

    @Test
    void jobsPage_searchAsYouType_cursorPaging_andDeleteAfterConfirming() {
        for (int i = 1; i <= 55; i++) {
            createJob(String.format("batch %02d", i), receiver.url());
        }
        String alpha = createJob("alpha report", receiver.url());
        console.load("#/jobs");
        List<String> first = console.texts("#jobs td.job-name");
        assertEquals(50, first.size());
        assertEquals("alpha report", first.get(0), "ordered by name");
        console.click("a.next");
        console.awaitReady();
        assertEquals(List.of("batch 50", "batch 51", "batch 52", "batch 53", "batch 54", "batch 55"),
                console.texts("#jobs td.job-name"));
        console.click("a.first");
        console.awaitReady();
        assertEquals(first, console.texts("#jobs td.job-name"));

        console.type("#job-search", "ALP");
        console.until(() -> "the search is applied", b -> console.hash().equals("#/jobs?name=ALP"));
        console.awaitReady();
        assertEquals(List.of("alpha report"), console.texts("#jobs td.job-name"));

        String row = "#jobs tr[data-job-id='" + alpha + "']";
        console.click(row + " button.delete");
        assertEquals(200, api.get("/api/jobs/" + alpha).status(), "nothing is deleted before the confirmation");
        console.click(row + " button.confirm-delete");
        console.until(() -> "the row is gone", b -> b.findElements(By.cssSelector(row)).isEmpty());
        console.awaitTextContaining("#message", "deleted");
        assertEquals(404, api.get("/api/jobs/" + alpha).status());
    }

    @Test
    void poolsPage_fromTheNavigation_listsEachPoolByName_withItsLimitsRateAndCreationTime() {
        assertEquals(201, api.post("/api/pools", "{\"name\": \"partner-api\", \"maxConcurrent\": 4,"
                + " \"rate\": {\"permits\": 50, \"perMs\": 1000}}").status());
        assertEquals(201, api.post("/api/pools", "{\"name\": \"bounded\", \"maxConcurrent\": 2}").status());
        assertEquals(201, api.post("/api/pools", "{\"name\": \"rate-only\", \"rate\": {\"permits\": 1,"
                + " \"perMs\": 60000}}").status());
        console.load("#/");
        console.click("nav a[data-path='/pools']");
        console.until(() -> "the pools page opens", b -> console.hash().equals("#/pools"));
        console.awaitReady();

        assertTrue(browser.findElement(By.cssSelector("nav a[data-path='/pools']")).getAttribute("class")
                .contains("active"), "the navigation marks the page");
        assertEquals(List.of("bounded", "partner-api", "rate-only"), console.texts("#pools td.pool-name"));
        String partner = "#pools tr[data-pool='partner-api']";
        assertEquals("4", console.text(partner + " td.pool-max-concurrent"));
        assertEquals("50 per 1000 ms", console.text(partner + " td.pool-rate"));
        assertEquals("—", console.text("#pools tr[data-pool='bounded'] td.pool-rate"), "no rate");
        assertEquals("no limit", console.text("#pools tr[data-pool='rate-only'] td.pool-max-concurrent"));
        assertEquals("1 per 60000 ms", console.text("#pools tr[data-pool='rate-only'] td.pool-rate"));
        assertEquals(api.get("/api/pools/partner-api").json().get("createdAt").asText(),
                browser.findElement(By.cssSelector(partner + " td.pool-created time")).getAttribute("title"));
    }

    @Test
    void editForm_showsTheJob_sendsOnlyFilledFields_andTheSigningSecretWriteOnly() {
        assertEquals(201, api.post("/api/calendars", "{\"name\": \"edit-cal\", \"excludedWeekdays\": [\"SUNDAY\"]}")
                .status());
        assertEquals(201, api.post("/api/pools", "{\"name\": \"edit-pool\", \"maxConcurrent\": 4}").status());
        ApiClient.Reply created = api.post("/api/jobs", "{\"name\": \"edit me\", \"calendar\": \"edit-cal\","
                + " \"schedule\": {\"type\": \"CRON\","
                + " \"expression\": \"0 0 4 * * ?\", \"zone\": \"Europe/Berlin\", \"jitterMs\": 30000, \"maxRuns\": 10},"
                + " \"target\": {\"type\": \"WEBHOOK\","
                + " \"url\": \"" + receiver.url() + "\"}, \"params\": {\"a\": [1, 2]}, \"retry\": {\"maxAttempts\": 3,"
                + " \"backoffMs\": 2000}, \"timeoutMs\": 5000, \"maxConcurrent\": 2, \"overLimit\": \"SKIP\","
                + " \"priority\": 7, \"pool\": \"edit-pool\", \"completion\": \"CALLBACK\","
                + " \"callbackTimeoutMs\": 90000}");
        assertEquals(201, created.status(), created.toString());
        String jobId = created.json().get("id").asText();
        console.load("#/jobs/" + jobId);
        console.awaitText("dd.job-priority", "7");
        console.awaitText("dd.job-completion", "by callback, within 90000 ms");
        console.awaitTextContaining("dd.job-pool", "edit-pool");
        console.click("a.edit");
        console.awaitReady();
        assertEquals("#/jobs/" + jobId + "/edit", console.hash());
        assertEquals("0 0 4 * * ?", value("schedule.expression"));
        assertEquals("Europe/Berlin", value("schedule.zone"));
        assertEquals("30000", value("schedule.jitterMs"));
        assertEquals("edit-cal", value("calendar"));
        assertEquals("10", value("schedule.maxRuns"));
        assertEquals("", value("schedule.startAt"));
        assertEquals("3", value("retry.maxAttempts"));
        assertEquals("2000", value("retry.backoffMs"));
        assertEquals("5000", value("timeoutMs"));
        assertEquals("SKIP", value("overLimit"));
        assertEquals("7", value("priority"));
        assertEquals("edit-pool", value("pool"));
        assertEquals("CALLBACK", value("completion"));
        assertEquals("90000", value("callbackTimeoutMs"));
        assertEquals(1, ((Number) console.script("return JSON.parse(document.querySelector(\"[name='params']\").value).a[0];"))
                .intValue());
        assertEquals("", value("signingSecret"), "a secret is never shown");
        console.awaitTextContaining("#signed-state", "signed: ");

        // Record what the form sends (the page is not reloaded, so the spy stays).
        console.script("window.sentBodies = []; const f = window.fetch; window.fetch = (u, o) => {"
                + " if (o && o.method === 'PUT') window.sentBodies.push(JSON.parse(o.body)); return f(u, o); };");
        console.type("input[name='timeoutMs']", "");
        console.click("#save-job");
        console.until(() -> "the job page opens", b -> console.hash().equals("#/jobs/" + jobId));
        console.awaitTextContaining("#message", "saved");
        Map<?, ?> sent = sentBody(0);
        assertFalse(sent.containsKey("timeoutMs"), "an emptied input is left out: " + sent);
        assertFalse(sent.containsKey("signingSecret"), "an empty secret on edit keeps the current one: " + sent);
        assertFalse(sent.containsKey("retentionDays") || sent.containsKey("alertUrl"), sent.toString());
        assertEquals(Map.of("type", "CRON", "expression", "0 0 4 * * ?", "zone", "Europe/Berlin", "jitterMs", 30000L,
                "maxRuns", 10L), sent.get("schedule"));
        JsonNode saved = api.get("/api/jobs/" + jobId).json();
        assertTrue(saved.get("timeoutMs").isNull(), saved.toString());
        assertEquals(3, saved.at("/retry/maxAttempts").asInt());
        assertEquals(2, saved.at("/params/a/1").asInt());
        assertEquals("edit-cal", saved.get("calendar").asText(), "the form sends the calendar back");
        assertEquals(7, saved.get("priority").asInt(), "and the priority");
        assertEquals("edit-pool", saved.get("pool").asText(), "and the pool");
        assertEquals("CALLBACK", saved.get("completion").asText(), "and the completion");
        assertEquals(90_000, saved.get("callbackTimeoutMs").asLong());
        console.awaitText("dd.job-calendar", "edit-cal");

        // "remove secret" sends an empty secret; a typed one goes as typed, with the operations fields.
        console.click("a.edit");
        console.awaitReady();
        console.click("#remove-secret");
        console.click("#save-job");
        console.until(() -> "a second body is sent", b -> ((Number) console.script("return window.sentBodies.length;"))
                .intValue() == 2);
        assertEquals("", sentBody(1).get("signingSecret"));
        // The body is recorded as it is sent: wait for the answer (the job page, or the form with the refusal).
        String secretError = ".field-error[data-error-for='signingSecret']";
        console.until(() -> "the save is answered", b -> !console.hash().endsWith("/edit")
                || !b.findElement(By.cssSelector(secretError)).getText().isEmpty());
        if (console.hash().endsWith("/edit")) {
            // A server without the field refuses it by name: the message is at that input.
            console.awaitTextContaining(secretError, "signingSecret");
        } else {
            console.click("a.edit");
            console.awaitReady();
        }
        console.type("input[name='signingSecret']", " a signing secret, 16+ ");
        console.type("input[name='retentionDays']", "30");
        console.type("input[name='alertUrl']", "https://alerts.example/hook");
        console.click("#save-job");
        console.until(() -> "a third body is sent", b -> ((Number) console.script("return window.sentBodies.length;"))
                .intValue() == 3);
        Map<?, ?> third = sentBody(2);
        assertEquals(" a signing secret, 16+ ", third.get("signingSecret"));
        assertEquals(30L, ((Number) third.get("retentionDays")).longValue());
        assertEquals("https://alerts.example/hook", third.get("alertUrl"));
    }

    private String value(String name) {
        return browser.findElement(By.name(name)).getAttribute("value");
    }

    private Map<?, ?> sentBody(int index) {
        return (Map<?, ?>) console.script("return window.sentBodies[" + index + "];");
    }

    /** Creates an API-scheduled webhook job through the API and answers its id. */
    private String createJob(String name, String url) {
        ApiClient.Reply created = api.post("/api/jobs", "{\"name\": \"" + name + "\", \"schedule\": {\"type\": \"API\"},"
                + " \"target\": {\"type\": \"WEBHOOK\", \"url\": \"" + url + "\"}}");
        assertEquals(201, created.status(), created.toString());
        return created.json().get("id").asText();
    }

    /** A webhook that answers every call with HTTP 500 and a body naming the trouble. Thread-safe. */
    static final class FailingWebhook implements AutoCloseable {

        private final HttpServer server;

        FailingWebhook(String body) throws IOException {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 50);
            server.createContext("/hook", exchange -> {
                exchange.getRequestBody().readAllBytes();
                byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(500, bytes.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(bytes);
                }
            });
            server.start();
        }

        String url() {
            return "http://127.0.0.1:" + server.getAddress().getPort() + "/hook";
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }
}
