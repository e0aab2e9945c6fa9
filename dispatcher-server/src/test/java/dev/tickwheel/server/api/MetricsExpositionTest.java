package dev.tickwheel.server.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tickwheel.fixtures.http.ApiClient;
import dev.tickwheel.server.Await;
import dev.tickwheel.server.app.TickwheelApplication;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real {@code /metrics} of a server on H2, after one webhook dispatch: Prometheus' own {@code promtool check
 * metrics} accepts it without a lint problem, every family has a HELP text, and the JVM, process, pool and HTTP
 * families are there; every query of docs/grafana-dashboard.json names metrics it exposes.
 *
 * <p>Needs {@code promtool} on the PATH (Debian: {@code apt-get install -y prometheus}; .ci/run installs it) and
 * fails, not skips, without it.
 */
class MetricsExpositionTest {

    @TempDir
    static Path dir;

    static TickwheelApplication app;
    static ApiClient api;
    static WebhookReceiver webhook;
    static String metrics;

    @BeforeAll
    static void startAndDispatch() {
        app = TestServers.start(dir, null, false);
        api = new ApiClient(app.baseUrl());
        webhook = new WebhookReceiver();
        ApiClient.Reply created = api.post("/api/jobs", """
                {"name": "scraped", "schedule": {"type": "API"}, "target": {"type": "WEBHOOK", "url": "%s"}}
                """.formatted(webhook.url()));
        assertEquals(201, created.status(), created.toString());
        String jobId = created.json().get("id").asText();
        String instanceId = api.post("/api/jobs/" + jobId + "/run", "{}").json().get("instanceId").asText();
        Await.until("instance delivered", Duration.ofSeconds(10), () -> webhook.deliveriesOf(instanceId) == 1);
        Await.until("success counted", Duration.ofSeconds(10), () -> api.get("/metrics").text().lines()
                .anyMatch(l -> l.startsWith("tickwheel_dispatch_total{") && l.contains("outcome=\"success\"")
                        && !l.endsWith(" 0.0")));
        // jvm_gc_pause_seconds appears with the first collection, which a short test may not have had yet.
        System.gc();
        Await.until("a GC pause recorded", Duration.ofSeconds(10),
                () -> api.get("/metrics").text().contains("jvm_gc_pause_seconds_count"));
        api.get("/no/such/route/42");
        api.get("/assets/dashboard.css");
        metrics = api.get("/metrics").text();
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
        if (webhook != null) {
            webhook.close();
        }
    }

    @Test
    void promtoolCheckMetrics_realOutput_passesWithoutLintProblems() throws IOException, InterruptedException {
        Process promtool;
        try {
            promtool = new ProcessBuilder("promtool", "check", "metrics").redirectErrorStream(true).start();
        } catch (IOException e) {
            fail("promtool is not on the PATH; install Prometheus' tools (Debian: apt-get install -y prometheus)", e);
            return;
        }
        promtool.getOutputStream().write(metrics.getBytes(StandardCharsets.UTF_8));
        promtool.getOutputStream().close();
        String output = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(promtool.waitFor(30, TimeUnit.SECONDS), "promtool did not finish");
        assertEquals("", output.strip(), "promtool check metrics reported problems");
        assertEquals(0, promtool.exitValue(), output);
    }

    @Test
    void everyFamily_hasNonEmptyHelp() {
        Map<String, String> helps = helpByFamily();
        List<String> missing = new ArrayList<>();
        for (String line : metrics.lines().toList()) {
            if (line.startsWith("# TYPE ")) {
                String family = line.split(" ")[2];
                String help = helps.get(family);
                if (help == null || help.isBlank()) {
                    missing.add(family);
                }
            }
        }
        assertTrue(missing.isEmpty(), "families without a HELP text: " + missing);
    }

    @Test
    void runtimePoolAndHttpFamilies_present() {
        Map<String, String> helps = helpByFamily();
        for (String prefix : List.of("jvm_memory_", "jvm_gc_", "jvm_threads_", "jvm_classes_", "process_cpu_",
                "process_uptime_", "process_files_", "hikaricp_connections", "http_server_requests",
                "tickwheel_dispatch_", "tickwheel_fire_lateness_", "tickwheel_misfires", "tickwheel_job_calls",
                "tickwheel_instances_purged", "tickwheel_retention_runs", "tickwheel_retention_duration_seconds",
                "tickwheel_alerts")) {
            assertTrue(helps.keySet().stream().anyMatch(f -> f.startsWith(prefix)), "no family named " + prefix
                    + "*; families: " + helps.keySet());
        }
    }

    @Test
    void alerts_everyKindAndOutcomeExposedFromTheStart() {
        for (String kind : List.of("INSTANCE_FAILED", "MISFIRE_SKIPPED", "FAILURE_THRESHOLD")) {
            for (String outcome : List.of("sent", "failed", "suppressed", "dropped")) {
                assertTrue(metrics.lines().anyMatch(l -> l.startsWith("tickwheel_alerts_total{")
                        && l.contains("kind=\"" + kind + "\"") && l.contains("outcome=\"" + outcome + "\"")),
                        "tickwheel_alerts_total{kind=" + kind + ",outcome=" + outcome + "}");
            }
        }
    }

    @Test
    void httpServerRequests_taggedWithRouteTemplateNotRawPath() {
        assertTrue(metrics.lines().anyMatch(l -> l.startsWith("http_server_requests_seconds_count{")
                && l.contains("uri=\"/api/jobs/{id}/run\"")), "the run route by its template");
        assertTrue(metrics.contains("uri=\"NOT_FOUND\""), "unmatched paths under one value");
        assertTrue(metrics.contains("uri=\"/assets/**\""), "static files under one value");
        assertTrue(metrics.lines().noneMatch(l -> l.startsWith("http_server_requests") && l.matches(".*uri=\"[^\"]*\\d.*")),
                "no raw ids in uri tags");
    }

    @Test
    void grafanaDashboard_everyPanelQuery_namesMetricsThisServerExposes() throws IOException {
        Path file = null;
        for (Path at = Path.of("").toAbsolutePath(); at != null && file == null; at = at.getParent()) {
            Path candidate = at.resolve("docs/grafana-dashboard.json");
            file = Files.isRegularFile(candidate) ? candidate : null;
        }
        assertNotNull(file, "docs/grafana-dashboard.json not found above " + Path.of("").toAbsolutePath());
        Set<String> samples = new HashSet<>();
        metrics.lines().filter(l -> !l.startsWith("#") && !l.isBlank())
                .forEach(l -> samples.add(l.split("[{ ]", 2)[0]));
        JsonNode panels = new ObjectMapper().readTree(file.toFile()).get("panels");
        assertTrue(panels.size() >= 9, "panels: " + panels.size());
        Pattern metricName = Pattern.compile("\\b(?:tickwheel|hikaricp|jvm|process|http_server)_[a-z0-9_]+");
        for (JsonNode panel : panels) {
            assertTrue(panel.get("targets").size() > 0, "a panel without a query: " + panel.get("title"));
            for (JsonNode target : panel.get("targets")) {
                String expr = target.get("expr").asText();
                Matcher names = metricName.matcher(expr);
                assertTrue(names.find(), "no Tickwheel metric in " + expr);
                do {
                    assertTrue(samples.contains(names.group()), "panel '" + panel.get("title").asText()
                            + "' queries " + names.group() + ", which /metrics does not expose");
                } while (names.find());
            }
        }
    }

    private static Map<String, String> helpByFamily() {
        Map<String, String> helps = new LinkedHashMap<>();
        for (String line : metrics.lines().toList()) {
            if (line.startsWith("# HELP ")) {
                String[] parts = line.split(" ", 4);
                helps.put(parts[2], parts.length > 3 ? parts[3] : "");
            }
        }
        return helps;
    }
}
