package dev.tickwheel.server.store.jdbc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tickwheel.server.workflow.Workflow;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The stored form of a workflow's DAG ({@code tw_workflow.definition}): {@code {"nodes": [{"id", "jobId"}], "edges":
 * [{"from", "to", "on"}]}}, job ids as strings like everywhere in the API.
 *
 * <p>Stateless; thread-safe.
 */
final class WorkflowJson {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Columns of a definition row, in {@link #read} order. */
    static final String COLUMNS = "id, name, definition, trigger_job_id, created_at_ms";

    private WorkflowJson() {
    }

    static String write(Workflow workflow) {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode nodes = root.putArray("nodes");
        workflow.nodes().forEach(n -> nodes.addObject().put("id", n.id()).put("jobId", Long.toString(n.jobId())));
        ArrayNode edges = root.putArray("edges");
        workflow.edges().forEach(e -> edges.addObject().put("from", e.from()).put("to", e.to())
                .put("on", e.on().name()));
        return root.toString();
    }

    /** Reads a row over {@link #COLUMNS}. */
    static Workflow read(ResultSet rs) throws SQLException {
        JsonNode root;
        try {
            root = JSON.readTree(rs.getString("definition"));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("workflow " + rs.getLong("id") + " has a definition that is not JSON", e);
        }
        List<Workflow.Node> nodes = new ArrayList<>();
        root.get("nodes").forEach(n -> nodes.add(new Workflow.Node(n.get("id").asText(),
                Long.parseLong(n.get("jobId").asText()))));
        List<Workflow.Edge> edges = new ArrayList<>();
        root.get("edges").forEach(e -> edges.add(new Workflow.Edge(e.get("from").asText(), e.get("to").asText(),
                Workflow.On.valueOf(e.get("on").asText()))));
        return new Workflow(rs.getLong("id"), rs.getString("name"), nodes, edges,
                JdbcValues.getLong(rs, "trigger_job_id"), JdbcValues.getInstant(rs, "created_at_ms"));
    }
}
