package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.server.app.TickwheelApplication;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;

/**
 * The console against a server with a bearer token: reads work without it, a mutating action answers 401 and the
 * console says "this server needs a token" next to the token input; typed in, the token goes with the next action,
 * which then works, and it is kept for the browser tab (sessionStorage) across a reload.
 */
class ConsoleAuthBrowserTest {

    private static final String TOKEN = "s3cret-console-token";

    @TempDir
    Path dir;

    private TickwheelApplication app;
    private ConsolePage console;

    @BeforeEach
    void start() throws Exception {
        app = TestServers.start(dir.resolve("store"), TOKEN, false);
        console = ConsolePage.start(dir.resolve("chromium-profile"), app.baseUrl(), null);
    }

    @AfterEach
    void stop() throws Exception {
        ConsolePage.closeAll(console, app);
    }

    @Test
    void mutatingActionWithoutToken_showsTheHint_thenWorksOnceTheTokenIsTyped() {
        ApiClient api = new ApiClient(app.baseUrl()).withToken(TOKEN);
        ApiClient.Reply created = api.post("/api/jobs", "{\"name\": \"guarded\", \"schedule\": {\"type\": \"API\"},"
                + " \"target\": {\"type\": \"WEBHOOK\", \"url\": \"http://127.0.0.1:9/hook\"}}");
        assertEquals(201, created.status(), created.toString());
        String jobId = created.json().get("id").asText();
        String row = "#jobs tr[data-job-id='" + jobId + "']";

        WebDriver browser = console.browser();
        console.load("#/jobs");
        assertTrue(browser.findElement(By.id("token-hint")).getText().isEmpty(), "no hint before a refusal");
        console.click(row + " button.toggle");
        console.awaitText("#token-hint", "this server needs a token");
        console.awaitTextContaining("#message", "disable failed");
        assertEquals("yes", console.text(row + " td.job-enabled"));
        assertTrue(api.get("/api/jobs/" + jobId).json().get("enabled").asBoolean());

        console.type("#token", TOKEN);
        console.click(row + " button.toggle");
        console.awaitText(row + " td.job-enabled", "no");
        console.until(() -> "the hint is gone", b -> !b.findElement(By.id("token-hint")).isDisplayed());
        assertFalse(api.get("/api/jobs/" + jobId).json().get("enabled").asBoolean());

        // The token stays for this tab: after a reload the next action still carries it.
        console.load("#/jobs/" + jobId);
        assertEquals(TOKEN, browser.findElement(By.id("token")).getAttribute("value"));
        console.click("button.toggle");
        console.awaitText("dd.job-enabled", "yes");
        assertTrue(api.get("/api/jobs/" + jobId).json().get("enabled").asBoolean());
    }
}
