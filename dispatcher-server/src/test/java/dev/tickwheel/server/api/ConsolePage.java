package dev.tickwheel.server.api;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.NoSuchElementException;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Drives the console in its own headless Chromium the way an operator does: open a hash route, click, type, read;
 * every wait is on page state (the console sets {@code #view[data-ready]} to the hash it has drawn). Elements that a
 * refresh redraws are looked up again on each try. Not thread-safe: one test's browser. {@link #close()} quits it.
 */
final class ConsolePage implements AutoCloseable {

    private static final Duration WAIT = Duration.ofSeconds(20);

    private final WebDriver browser;
    private final String baseUrl;

    private ConsolePage(WebDriver browser, String baseUrl) {
        this.browser = browser;
        this.baseUrl = baseUrl;
    }

    /**
     * @param profile  an empty directory for the browser's profile
     * @param baseUrl  the server's base URL
     * @param timeZone the browser's zone (an IANA id), or null for the machine's
     */
    static ConsolePage start(Path profile, String baseUrl, String timeZone) throws IOException {
        return new ConsolePage(HeadlessChromium.start(profile, timeZone), baseUrl);
    }

    @Override
    public void close() {
        browser.quit();
    }

    /** Closes each resource that is not null, in order, each even if an earlier one failed (the first failure is thrown). */
    static void closeAll(AutoCloseable... inOrder) throws Exception {
        Exception first = null;
        for (AutoCloseable resource : inOrder) {
            try {
                if (resource != null) {
                    resource.close();
                }
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    WebDriver browser() {
        return browser;
    }

    /** Loads the page afresh at hash (about:blank first, so that even a same-document hash is a real load). */
    void load(String hash) {
        browser.get("about:blank");
        browser.get(baseUrl + "/" + hash);
        awaitReady();
    }

    /** Waits until the console has drawn the view of the current hash. */
    void awaitReady() {
        until(() -> "the view of " + browser.getCurrentUrl() + " is drawn", b -> Boolean.TRUE.equals(script(
                "const v = document.getElementById('view');"
                        + " return !!v && v.dataset.ready === (location.hash || '#/');")));
    }

    /**
     * Types token into the login state's field and presses Enter, then waits until the header names who is logged in
     * and the view of the current hash is drawn again; answers the header's "name · role · namespace".
     */
    String logIn(String token) {
        type("#login-token", token + Keys.ENTER);
        String who = until(() -> "the header names who is logged in", b -> {
            String text = b.findElement(By.id("whoami")).getText();
            return text.isEmpty() ? null : text;
        });
        awaitReady();
        return who;
    }

    /** Whether an element matching css is on the page and shown. */
    boolean shown(String css) {
        return browser.findElements(By.cssSelector(css)).stream().anyMatch(WebElement::isDisplayed);
    }

    /** The hash as the browser has it now ("#/jobs/123"). */
    String hash() {
        return (String) script("return location.hash;");
    }

    Object script(String javascript) {
        return ((JavascriptExecutor) browser).executeScript(javascript);
    }

    void click(String css) {
        until(() -> "click " + css, b -> {
            b.findElement(By.cssSelector(css)).click();
            return true;
        });
    }

    void type(String css, String text) {
        WebElement input = until(() -> css + " is shown", b -> {
            WebElement found = b.findElement(By.cssSelector(css));
            return found.isDisplayed() ? found : null;
        });
        input.clear();
        input.sendKeys(text);
    }

    String text(String css) {
        return until(() -> css + " exists", b -> b.findElement(By.cssSelector(css)).getText());
    }

    List<String> texts(String css) {
        return until(() -> css + " can be read", b -> b.findElements(By.cssSelector(css)).stream()
                .map(WebElement::getText).toList());
    }

    /** Waits until the text of css equals expected. */
    void awaitText(String css, String expected) {
        until(() -> css + " reads '" + expected + "' (it reads '" + currentText(css) + "')",
                b -> expected.equals(b.findElement(By.cssSelector(css)).getText()));
    }

    /** Waits until the text of css contains part, and returns it. */
    String awaitTextContaining(String css, String part) {
        return until(() -> css + " contains '" + part + "' (it reads '" + currentText(css) + "')", b -> {
            String text = b.findElement(By.cssSelector(css)).getText();
            return text.contains(part) ? text : null;
        });
    }

    private String currentText(String css) {
        try {
            return browser.findElement(By.cssSelector(css)).getText();
        } catch (NoSuchElementException | StaleElementReferenceException e) {
            return "<none>";
        }
    }

    /** Waits (up to 20 s) until condition answers non-null and non-false; what says what failed, when it did. */
    <T> T until(Supplier<String> what, Function<WebDriver, T> condition) {
        return new WebDriverWait(browser, WAIT)
                .ignoring(StaleElementReferenceException.class)
                .ignoring(NoSuchElementException.class)
                .withMessage(() -> what.get() + "; page message: " + currentText("#message") + "; hash " + hash())
                .until(condition);
    }
}
