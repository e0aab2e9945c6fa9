package dev.tickwheel.server.workflow;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A workflow: a DAG of nodes, each naming a job, and edges from a parent to a child with a condition on the parent's
 * final status. A run of it ({@link WorkflowRun}) creates a node's instance once every incoming edge holds
 * ({@link Stepper}).
 *
 * <p>Immutable; a workflow is not changed once created.
 *
 * @param id        the workflow's id
 * @param name      1..200 characters
 * @param nodes     at least one, ids unique
 * @param edges        between known nodes, no cycle
 * @param triggerJobId the job that starts its runs on a schedule, or null for runs started only through the API
 * @param createdAt    when it was created
 */
public record Workflow(long id, String name, List<Node> nodes, List<Edge> edges, Long triggerJobId,
                       Instant createdAt) {

    /** Most nodes in one workflow. */
    public static final int MAX_NODES = 200;
    /** Longest node id. */
    public static final int MAX_NODE_ID_LENGTH = 100;
    private static final Pattern NODE_ID = Pattern.compile("[A-Za-z0-9._-]{1," + MAX_NODE_ID_LENGTH + "}");

    /** A node: a step that runs one instance of {@code jobId}. */
    public record Node(String id, long jobId) {
        public Node {
            Objects.requireNonNull(id, "id");
        }
    }

    /** When an edge holds, on its parent's final status. */
    public enum On {
        /** The parent SUCCEEDED. */
        SUCCEEDED,
        /** The parent FAILED (or was INTERRUPTED: its call was cut and not repeated). */
        FAILED,
        /** The parent ended, however (SUCCEEDED, FAILED, INTERRUPTED, CANCELLED), but was not skipped. */
        ALWAYS
    }

    /** An edge from {@code from} to {@code to}, holding {@code on} the parent's final status. */
    public record Edge(String from, String to, On on) {
        public Edge {
            Objects.requireNonNull(from, "from");
            Objects.requireNonNull(to, "to");
            Objects.requireNonNull(on, "on");
        }
    }

    /** A definition that is not a workflow: {@code field} names the part at fault ("nodes[2].id", "edges"). */
    public static final class InvalidWorkflowException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;
        private final String field;

        public InvalidWorkflowException(String field, String message) {
            super(message);
            this.field = field;
        }

        public String field() {
            return field;
        }
    }

    public Workflow {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(createdAt, "createdAt");
        nodes = List.copyOf(nodes);
        edges = List.copyOf(edges);
        check(nodes, edges);
    }

    /**
     * Checks a definition: nodes with unique ids, edges between them, no edge twice, no cycle.
     *
     * @throws InvalidWorkflowException naming the field at fault; a cycle names its nodes in order
     */
    public static void check(List<Node> nodes, List<Edge> edges) {
        if (nodes.isEmpty()) {
            throw new InvalidWorkflowException("nodes", "a workflow has at least one node");
        }
        if (nodes.size() > MAX_NODES) {
            throw new InvalidWorkflowException("nodes", "a workflow has at most " + MAX_NODES + " nodes, got "
                    + nodes.size());
        }
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < nodes.size(); i++) {
            String id = nodes.get(i).id();
            if (!NODE_ID.matcher(id).matches()) {
                throw new InvalidWorkflowException("nodes[" + i + "].id", "a node id is 1.." + MAX_NODE_ID_LENGTH
                        + " letters, digits, '.', '_' or '-', got '" + id + "'");
            }
            if (!ids.add(id)) {
                throw new InvalidWorkflowException("nodes[" + i + "].id", "node id '" + id + "' is used twice");
            }
        }
        Set<String> pairs = new HashSet<>();
        for (int i = 0; i < edges.size(); i++) {
            Edge edge = edges.get(i);
            if (!ids.contains(edge.from())) {
                throw new InvalidWorkflowException("edges[" + i + "].from", "no node '" + edge.from() + "'");
            }
            if (!ids.contains(edge.to())) {
                throw new InvalidWorkflowException("edges[" + i + "].to", "no node '" + edge.to() + "'");
            }
            if (!pairs.add(edge.from() + "\n" + edge.to())) {
                throw new InvalidWorkflowException("edges[" + i + "]", "the edge " + edge.from() + " -> " + edge.to()
                        + " is given twice");
            }
        }
        List<String> cycle = findCycle(nodes, edges);
        if (!cycle.isEmpty()) {
            throw new InvalidWorkflowException("edges", "the edges make a cycle: " + String.join(" -> ", cycle));
        }
    }

    /** A cycle as its nodes, the first repeated at the end; empty for a DAG. Iterative depth-first search. */
    private static List<String> findCycle(List<Node> nodes, List<Edge> edges) {
        Map<String, List<String>> children = new LinkedHashMap<>();
        nodes.forEach(n -> children.put(n.id(), new ArrayList<>()));
        edges.forEach(e -> children.get(e.from()).add(e.to()));
        Map<String, Integer> state = new HashMap<>(); // absent: new; 1: on the current path; 2: done
        for (Node start : nodes) {
            if (state.containsKey(start.id())) {
                continue;
            }
            Deque<String> path = new ArrayDeque<>();
            Deque<java.util.Iterator<String>> next = new ArrayDeque<>();
            path.push(start.id());
            next.push(children.get(start.id()).iterator());
            state.put(start.id(), 1);
            while (!path.isEmpty()) {
                java.util.Iterator<String> it = next.peek();
                if (!it.hasNext()) {
                    state.put(path.pop(), 2);
                    next.pop();
                    continue;
                }
                String child = it.next();
                Integer seen = state.get(child);
                if (seen == null) {
                    state.put(child, 1);
                    path.push(child);
                    next.push(children.get(child).iterator());
                } else if (seen == 1) {
                    List<String> cycle = new ArrayList<>();
                    List<String> onPath = new ArrayList<>(path);
                    java.util.Collections.reverse(onPath);
                    cycle.addAll(onPath.subList(onPath.indexOf(child), onPath.size()));
                    cycle.add(child);
                    return cycle;
                }
            }
        }
        return List.of();
    }

    /** The node with this id, or null. */
    public Node node(String nodeId) {
        for (Node node : nodes) {
            if (node.id().equals(nodeId)) {
                return node;
            }
        }
        return null;
    }

    /** The edges into {@code nodeId}. */
    public List<Edge> edgesInto(String nodeId) {
        return edges.stream().filter(e -> e.to().equals(nodeId)).toList();
    }
}
