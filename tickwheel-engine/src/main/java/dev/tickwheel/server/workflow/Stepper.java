package dev.tickwheel.server.workflow;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Decides a run's next steps from its nodes' statuses: which pending nodes start, which are skipped, and whether the
 * run is over. Pure: the store applies the answer in the transaction that recorded the status that changed.
 *
 * <p>A pending node is decided once every parent is final (ended or skipped): it starts if every incoming edge holds
 * ({@link Workflow.On}), else it is skipped, and a skip can decide its own children in turn. A skipped parent holds
 * no edge, so a skip runs down a branch until a node with another way in. The run is over when no node is pending or
 * started: FAILED if a node ended FAILED, INTERRUPTED or CANCELLED, else SUCCEEDED.
 *
 * <p>Stateless; thread-safe.
 */
public final class Stepper {

    /** A node whose instance is not yet created. */
    public static final String PENDING = "PENDING";
    /** A node whose instance is created and not yet final. */
    public static final String STARTED = "STARTED";
    /** A node whose edges can no longer hold. */
    public static final String SKIPPED = "SKIPPED";

    private static final Set<String> ENDED = Set.of("SUCCEEDED", "FAILED", "INTERRUPTED", "CANCELLED");
    private static final Set<String> FAILURES = Set.of("FAILED", "INTERRUPTED", "CANCELLED");

    /**
     * What to do next.
     *
     * @param start     nodes whose instance is to be created now, in the workflow's order
     * @param skip      nodes to mark skipped
     * @param runStatus the run's final status if it is over once these are applied, else null
     */
    public record Step(List<String> start, List<String> skip, WorkflowRun.Status runStatus) {
    }

    private Stepper() {
    }

    /** The next step of a run whose nodes are in {@code statuses} (node id to status; every node present). */
    public static Step next(Workflow workflow, Map<String, String> statuses) {
        Map<String, String> now = new HashMap<>(statuses);
        List<String> start = new ArrayList<>();
        List<String> skip = new ArrayList<>();
        boolean changed = true;
        while (changed) {
            changed = false;
            for (Workflow.Node node : workflow.nodes()) {
                if (!PENDING.equals(now.get(node.id()))) {
                    continue;
                }
                List<Workflow.Edge> in = workflow.edgesInto(node.id());
                boolean decided = in.stream().allMatch(e -> isFinal(now.get(e.from())));
                if (!decided) {
                    continue;
                }
                if (in.stream().allMatch(e -> holds(e.on(), now.get(e.from())))) {
                    start.add(node.id());
                    now.put(node.id(), STARTED);
                } else {
                    skip.add(node.id());
                    now.put(node.id(), SKIPPED);
                    changed = true; // its children may be decided now
                }
            }
        }
        boolean over = now.values().stream().noneMatch(s -> PENDING.equals(s) || STARTED.equals(s));
        WorkflowRun.Status status = !over ? null
                : now.values().stream().anyMatch(FAILURES::contains) ? WorkflowRun.Status.FAILED
                : WorkflowRun.Status.SUCCEEDED;
        return new Step(List.copyOf(start), List.copyOf(skip), status);
    }

    /** Ended or skipped: nothing about this node changes any more. */
    public static boolean isFinal(String status) {
        return ENDED.contains(status) || SKIPPED.equals(status);
    }

    static boolean holds(Workflow.On on, String parent) {
        return switch (on) {
            case SUCCEEDED -> "SUCCEEDED".equals(parent);
            case FAILED -> "FAILED".equals(parent) || "INTERRUPTED".equals(parent);
            case ALWAYS -> ENDED.contains(parent);
        };
    }
}
