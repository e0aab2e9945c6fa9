package dev.tickwheel.example.reminders;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The console mounted under {@code /tickwheel/} on the example's own server, in Debian's headless Chromium: the page
 * loads its scripts below the mount and reads the API there (the jobs view lists the declared job). A console that
 * took its paths from the server's root would find nothing: the application has no {@code /api/jobs}.
 */
class MountedConsoleBrowserTest {

    private static final TestSchema SCHEMA = new TestSchema();
    private static ConfigurableApplicationContext application;
    private static int port;

    @BeforeAll
    static void start() {
        application = new SpringApplicationBuilder(ReminderApplication.class).run("--server.port=0",
                "--spring.datasource.url=" + SCHEMA.jdbcUrl(), "--spring.jmx.enabled=false");
        port = Integer.parseInt(application.getEnvironment().getRequiredProperty("local.server.port"));
    }

    @AfterAll
    static void stop() {
        application.close();
        SCHEMA.drop();
    }

    @Test
    void jobsView_underTheMount_listsTheDeclaredJob(@TempDir Path profile) throws Exception {
        assertThat(Files.isExecutable(Path.of("/usr/bin/chromium"))
                && Files.isExecutable(Path.of("/usr/bin/chromedriver")))
                .as("install Debian's chromium and chromium-driver (.ci/run does)").isTrue();
        ChromeOptions options = new ChromeOptions().setBinary("/usr/bin/chromium").addArguments("--headless",
                "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--user-data-dir=" + Files.createDirectories(profile.resolve("chromium")));
        WebDriver browser = new ChromeDriver(new ChromeDriverService.Builder()
                .usingDriverExecutable(new File("/usr/bin/chromedriver")).usingAnyFreePort().build(), options);
        try {
            browser.get("http://127.0.0.1:" + port + "/tickwheel/#/jobs");
            new WebDriverWait(browser, Duration.ofSeconds(30)).until(b -> b.getPageSource().contains("reminders"));
            assertThat(browser.getCurrentUrl()).startsWith("http://127.0.0.1:" + port + "/tickwheel/");
        } finally {
            browser.quit();
        }
    }
}
