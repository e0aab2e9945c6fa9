package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.tickwheel.server.app.TickwheelApplication;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The dashboard end to end in a real headless Chromium (Debian's chromium and chromium-driver; .ci/run installs them):
 * load the page on a demo server, see the demo jobs, cancel a waiting instance from the page, see it become CANCELLED;
 * and /api-docs shows every operation of docs/openapi.yaml with the Swagger UI the server bundles.
 */
class DashboardBrowserTest {

    private static final String CHROMIUM = "/usr/bin/chromium";
    private static final String CHROMEDRIVER = "/usr/bin/chromedriver";

    @TempDir
    Path dir;

    private TickwheelApplication app;
    private WebDriver browser;

    @BeforeEach
    void start() throws Exception {
        assertTrue(Files.isExecutable(Path.of(CHROMIUM)) && Files.isExecutable(Path.of(CHROMEDRIVER)),
                "install Debian's chromium and chromium-driver (apt-get install -y chromium chromium-driver)");
        app = TestServers.start(dir.resolve("store"), null, true);
        ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM).addArguments("--headless", "--no-sandbox",
                "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run",
                "--user-data-dir=" + Files.createDirectories(dir.resolve("chromium-profile")));
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(CHROMEDRIVER)).usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
    }

    @AfterEach
    void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (app != null) {
            app.close();
        }
    }

    @Test
    void dashboard_demoServer_showsJobsAndCancelsAWaitingInstance() {
        browser.get(app.baseUrl() + "/");
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(20));
        wait.withMessage(() -> "page state: " + browser.findElement(By.id("updated")).getText() + " / "
                + browser.findElement(By.id("message")).getText());

        wait.until(b -> b.findElements(By.cssSelector("#jobs td.job-name")).size() >= 4);
        List<String> names = browser.findElements(By.cssSelector("#jobs td.job-name")).stream()
                .map(WebElement::getText).toList();
        assertTrue(names.contains("demo: every 5 s (cron, webhook)"), names.toString());
        assertTrue(names.contains("demo: on demand (API, webhook)"), names.toString());
        wait.until(b -> b.findElement(By.id("health")).getText().equals("UP"));
        wait.until(b -> !b.findElement(By.id("pending-precise")).getText().equals("–"));

        // The demo's API job has an instance due in 120 s: it stays WAITING for the whole test.
        String instanceId = wait.until(b -> {
            for (WebElement row : b.findElements(By.cssSelector("#instances tbody tr"))) {
                try {
                    if (!row.findElements(By.cssSelector("button.cancel")).isEmpty()
                            && row.findElement(By.cssSelector("td.status")).getText().equals("WAITING")
                            && expectedInMoreThanAMinute(row.getAttribute("data-instance-id"))) {
                        return row.getAttribute("data-instance-id");
                    }
                } catch (StaleElementReferenceException redrawn) {
                    return null; // the table was redrawn; try again
                }
            }
            return null;
        });
        clickCancel(wait, instanceId);

        wait.until(b -> {
            try {
                return b.findElement(By.cssSelector("#instances tr[data-instance-id='" + instanceId + "'] td.status"))
                        .getText().equals("CANCELLED");
            } catch (StaleElementReferenceException | org.openqa.selenium.NoSuchElementException redrawn) {
                return false;
            }
        });
        assertEquals("CANCELLED", new ApiClient(app.baseUrl()).get("/api/instances/" + instanceId).json()
                .get("status").asText());
    }

    private boolean expectedInMoreThanAMinute(String instanceId) {
        String due = new ApiClient(app.baseUrl()).get("/api/instances/" + instanceId).json()
                .path("expectedTriggerTime").asText();
        return !due.isEmpty() && java.time.Instant.parse(due).isAfter(java.time.Instant.now().plusSeconds(60));
    }

    private static void clickCancel(WebDriverWait wait, String instanceId) {
        wait.until(b -> {
            try {
                b.findElement(By.cssSelector("#instances tr[data-instance-id='" + instanceId + "'] button.cancel"))
                        .click();
                return true;
            } catch (StaleElementReferenceException | org.openqa.selenium.NoSuchElementException redrawn) {
                return false; // redrawn between find and click; the page refreshes every 2 s
            }
        });
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
