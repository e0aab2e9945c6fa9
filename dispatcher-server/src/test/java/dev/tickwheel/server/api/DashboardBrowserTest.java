package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.tickwheel.server.app.TickwheelApplication;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console's overview and the API docs in a real headless Chromium on a demo server: live counts from /metrics,
 * health, the lateness histogram (its last bucket labelled "> last bound"), the cluster, the demo jobs on the jobs
 * page; and /api-docs shows every operation of docs/openapi.yaml with the Swagger UI the server bundles.
 */
class DashboardBrowserTest {

    @TempDir
    Path dir;

    private TickwheelApplication app;
    private ConsolePage console;
    private WebDriver browser;

    @BeforeEach
    void start() throws Exception {
        app = TestServers.start(dir.resolve("store"), null, true);
        console = ConsolePage.start(dir.resolve("chromium-profile"), app.baseUrl(), null);
        browser = console.browser();
    }

    @AfterEach
    void stop() throws Exception {
        ConsolePage.closeAll(console, app);
    }

    @Test
    void overview_demoServer_showsCountsHealthHistogramAndCluster_andTheJobsPageTheDemoJobs() {
        console.load("#/");
        console.awaitText("#health", "UP");
        console.until(() -> "the wheel counts are shown", b -> !b.findElement(By.id("pending-precise")).getText()
                .equals("–") && !b.findElement(By.id("pending-coarse")).getText().equals("–"));
        // The demo's 5 s cron job fires within seconds: its lateness lands in a bucket.
        console.until(() -> "a fire is counted", b -> Integer.parseInt(b.findElement(By.id("dispatched-ok")).getText()) > 0);
        List<String> labels = console.texts("#lateness .bar .le");
        assertTrue(labels.size() >= 3, labels.toString());
        assertEquals("≤ 1 ms", labels.get(0));
        String last = labels.get(labels.size() - 1);
        String lastBound = labels.get(labels.size() - 2).substring("≤ ".length());
        assertEquals("> " + lastBound, last, "the +Inf bucket reads '> <last finite bound>': " + labels);
        assertFalse(labels.stream().anyMatch(l -> l.contains("≤>")), labels.toString());
        assertTrue(console.text("#cluster tbody tr.self").contains("(this server)"));

        console.click("nav a[data-path='/jobs']");
        console.awaitReady();
        List<String> names = console.texts("#jobs td.job-name");
        assertTrue(names.contains("demo: every 5 s (cron, webhook)"), names.toString());
        assertTrue(names.contains("demo: on demand (API, webhook)"), names.toString());
    }

    @Test
    void apiDocs_bundledSwaggerUi_rendersEveryOperation() throws Exception {
        int operations = new ObjectMapper(new YAMLFactory()).readTree(OpenApiContractTest.openApiFile().toFile())
                .get("paths").findValues("operationId").size();
        browser.get(app.baseUrl() + ApiDocs.PAGE_PATH);
        new WebDriverWait(browser, Duration.ofSeconds(20))
                .withMessage(() -> "operations shown: " + browser.findElements(By.cssSelector(".opblock")).size())
                .until(b -> b.findElements(By.cssSelector(".opblock")).size() == operations);
        assertTrue(browser.findElement(By.cssSelector(".info .title")).getText().contains("Tickwheel HTTP API"));
    }
}
