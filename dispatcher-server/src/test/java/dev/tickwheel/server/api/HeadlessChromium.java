package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Starts Debian's headless Chromium through the system chromedriver (.ci/run installs both), with its own profile
 * directory and, optionally, a time zone of its own (TZ), so that a test can check what the browser's zone changes.
 */
final class HeadlessChromium {

    static final String CHROMIUM = "/usr/bin/chromium";
    static final String CHROMEDRIVER = "/usr/bin/chromedriver";

    private HeadlessChromium() {
    }

    /**
     * @param profile  an empty directory for the browser's profile
     * @param timeZone an IANA zone id for the browser (TZ), or null for the machine's
     */
    static WebDriver start(Path profile, String timeZone) throws IOException {
        assertTrue(Files.isExecutable(Path.of(CHROMIUM)) && Files.isExecutable(Path.of(CHROMEDRIVER)),
                "install Debian's chromium and chromium-driver (apt-get install -y chromium chromium-driver)");
        ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM).addArguments("--headless", "--no-sandbox",
                "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1400,1000",
                "--user-data-dir=" + Files.createDirectories(profile));
        ChromeDriverService.Builder service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(CHROMEDRIVER)).usingAnyFreePort();
        if (timeZone != null) {
            service.withEnvironment(Map.of("TZ", timeZone)); // chromedriver hands its environment to Chromium
        }
        return new ChromeDriver(service.build(), options);
    }
}
