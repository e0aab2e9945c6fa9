package dev.tickwheel.server.cluster.process;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tickwheel.server.Await;
import dev.tickwheel.server.api.ApiClient;
import java.net.URLEncoder;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The store's instances as the API shows them ({@code GET /api/instances}, every page, from any running member), and
 * the bounded wait for all of them to end. Each test has a schema of its own, so every instance listed is the test's.
 *
 * <p>Stateless.
 */
final class StoredInstances {

    /** The states in which an instance is done. */
    static final Set<String> TERMINAL = Set.of("SUCCEEDED", "FAILED", "CANCELLED", "INTERRUPTED");

    /**
     * One instance; {@code claimNode} and {@code claimEpoch} are null if it was never claimed.
     *
     * @param expectedTriggerMillis when its current or last attempt was due (wall clock)
     */
    record Stored(long id, long jobId, String status, int attempt, int shard, Integer claimNode, Long claimEpoch,
                  String error, long expectedTriggerMillis) {
    }

    private static final int PAGE = 1_000;

    private StoredInstances() {
    }

    /** Every instance of the store, by id. */
    static Map<Long, Stored> fetchAll(ClusterNodes nodes) {
        Map<Long, Stored> all = new HashMap<>();
        String cursor = null;
        do {
            String path = "/api/instances?limit=" + PAGE
                    + (cursor == null ? "" : "&cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8));
            ApiClient.Reply page = nodes.get(path);
            if (page.status() != 200) {
                throw new AssertionError("GET " + path + " answered " + page);
            }
            for (JsonNode item : page.json().get("items")) {
                Stored stored = parse(item);
                all.put(stored.id(), stored);
            }
            JsonNode next = page.json().get("nextCursor");
            cursor = next == null || next.isNull() ? null : next.asText();
        } while (cursor != null);
        return all;
    }

    /**
     * Waits until no instance is WAITING or DISPATCHING (the listing, asked every half second); the failure message
     * shows some that are not done and the lease table.
     */
    static void awaitAllTerminal(ClusterNodes nodes, Duration bound) {
        Await.until(() -> "every instance to end; not yet: " + unfinishedSample(nodes) + "; cluster: "
                        + nodes.trySnapshot().map(ClusterSnapshot::describe).orElse("no member answers"), bound,
                Throttled.every(Duration.ofMillis(500), () -> count(nodes, "WAITING") == 0
                        && count(nodes, "DISPATCHING") == 0));
    }

    private static int count(ClusterNodes nodes, String status) {
        ApiClient.Reply reply = nodes.get("/api/instances?limit=1&status=" + status);
        if (reply.status() != 200) {
            return -1; // e.g. the store is down for a moment: not done, ask again
        }
        return reply.json().get("items").size();
    }

    private static List<String> unfinishedSample(ClusterNodes nodes) {
        List<String> sample = new ArrayList<>();
        for (String status : List.of("WAITING", "DISPATCHING")) {
            ApiClient.Reply reply = nodes.get("/api/instances?limit=5&status=" + status);
            if (reply.status() != 200) {
                sample.add(status + ": " + reply);
                continue;
            }
            for (JsonNode item : reply.json().get("items")) {
                Stored s = parse(item);
                sample.add(s.id() + " " + s.status() + " shard " + s.shard() + " due "
                        + Instant.ofEpochMilli(s.expectedTriggerMillis()) + " claim node " + s.claimNode()
                        + " epoch " + s.claimEpoch());
            }
        }
        return sample;
    }

    static Stored parse(JsonNode item) {
        return new Stored(Long.parseLong(required(item, "id").asText()),
                Long.parseLong(required(item, "jobId").asText()), required(item, "status").asText(),
                required(item, "attempt").asInt(), required(item, "shard").asInt(),
                nullable(item, "claimNode") == null ? null : nullable(item, "claimNode").asInt(),
                nullable(item, "claimEpoch") == null ? null : nullable(item, "claimEpoch").asLong(),
                nullable(item, "error") == null ? null : nullable(item, "error").asText(),
                Instant.parse(required(item, "expectedTriggerTime").asText()).toEpochMilli());
    }

    private static JsonNode required(JsonNode item, String field) {
        JsonNode value = item.get(field);
        if (value == null || value.isNull()) {
            throw new AssertionError("an instance without '" + field + "': " + item);
        }
        return value;
    }

    private static JsonNode nullable(JsonNode item, String field) {
        JsonNode value = item.get(field);
        return value == null || value.isNull() ? null : value;
    }

    /**
     * The instances a member had claimed and not settled (DISPATCHING under its node): its calls in flight, which
     * the new owner makes again only once their deadline has passed ({@code ForeignClaimSettler}), so they are not
     * part of the take-over of what was due.
     */
    static Set<Long> claimedBy(String jdbcUrl, int nodeId) throws SQLException {
        Set<Long> ids = new HashSet<>();
        try (Connection connection = DriverManager.getConnection(jdbcUrl);
                PreparedStatement ps = connection.prepareStatement(
                        "SELECT id FROM tw_instance WHERE status = 'DISPATCHING' AND claim_node = ?")) {
            ps.setInt(1, nodeId);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
        }
        return ids;
    }
}
