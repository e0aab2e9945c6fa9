package dev.tickwheel.bench;

import dev.tickwheel.bench.e2e.BenchDatabase;
import dev.tickwheel.bench.e2e.Percentiles;
import dev.tickwheel.server.JobSpec;
import dev.tickwheel.server.TickwheelServer;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.workflow.Workflow;
import dev.tickwheel.server.workflow.Workflow.Edge;
import dev.tickwheel.server.workflow.Workflow.Node;
import dev.tickwheel.server.workflow.Workflow.On;
import dev.tickwheel.server.workflow.WorkflowRun;
import dev.tickwheel.time.ScheduleSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Workflow numbers on a fresh store: the step latency (a parent's final status written → its child's claim, from the
 * rows' own times) and the runs per second of a 5-node DAG (a → b, a → c, b and c → d, d → e) whose steps are
 * in-process handlers that return at once, so what is measured is the engine's own work per step: the step's
 * transaction, arming, firing, claiming.
 *
 * <pre>
 * java -cp dispatcher-bench/target/dispatcher-bench.jar dev.tickwheel.bench.WorkflowBenchmark [--db pg|h2] [--runs N]
 *      [--sequential N] [--rounds K]
 * </pre>
 * Each round starts {@code --runs} runs at once from 4 threads and waits until every run is over (runs per second:
 * runs ÷ the time from the first start to the last end), then runs {@code --sequential} runs one after another (the
 * step latency of an idle server). Prints each round and the median (min–max) of the rounds.
 */
public final class WorkflowBenchmark {

    private static final String[][] EDGES = {{"a", "b"}, {"a", "c"}, {"b", "d"}, {"c", "d"}, {"d", "e"}};

    private WorkflowBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        String db = "pg";
        int runs = 2_000;
        int sequential = 200;
        int rounds = 3;
        for (int i = 0; i < args.length; i += 2) {
            switch (args[i]) {
                case "--db" -> db = args[i + 1];
                case "--runs" -> runs = Integer.parseInt(args[i + 1]);
                case "--sequential" -> sequential = Integer.parseInt(args[i + 1]);
                case "--rounds" -> rounds = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (--db pg|h2, --runs N, --sequential N, --rounds K)");
            }
        }
        List<double[]> results = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            try (BenchDatabase store = db.equals("h2") ? BenchDatabase.h2()
                    : BenchDatabase.postgres(BenchDatabase.DEFAULT_PG_URL)) {
                double[] r = round(store.jdbcUrl(), runs, sequential);
                System.out.printf("%s round %d: %.0f runs/s (%d runs of 5 nodes), step latency under load p50 %.0f ms"
                                + " p99 %.0f ms; idle p50 %.0f ms p99 %.0f ms%n", db, round, r[0], runs, r[1], r[2],
                        r[3], r[4]);
                results.add(r);
            }
        }
        String[] names = {"runs/s", "loaded p50 ms", "loaded p99 ms", "idle p50 ms", "idle p99 ms"};
        StringBuilder line = new StringBuilder(db + " median (min-max) of " + rounds + ":");
        for (int k = 0; k < names.length; k++) {
            int at = k;
            double[] values = results.stream().mapToDouble(r -> r[at]).sorted().toArray();
            line.append(String.format(" %s %.0f (%.0f-%.0f);", names[k], values[values.length / 2], values[0],
                    values[values.length - 1]));
        }
        System.out.println(line);
    }

    /** One round on a fresh store: {runs/s, loaded p50, loaded p99, idle p50, idle p99}. */
    private static double[] round(String jdbcUrl, int runs, int sequential) throws Exception {
        try (TickwheelServer server = TickwheelServer.builder().jdbcUrl(jdbcUrl).handler("step", ctx -> { })
                .build().start()) {
            long jobId = server.jobs().create(JobSpec.of("step", ScheduleSpec.api(), Target.handler("step"))).id();
            List<Node> nodes = new ArrayList<>();
            for (String id : List.of("a", "b", "c", "d", "e")) {
                nodes.add(new Node(id, jobId));
            }
            List<Edge> edges = new ArrayList<>();
            for (String[] e : EDGES) {
                edges.add(new Edge(e[0], e[1], On.SUCCEEDED));
            }
            Workflow workflow = server.workflows().create("bench", nodes, edges, ScheduleSpec.api());

            ExecutorService starters = Executors.newFixedThreadPool(4);
            long startNanos = System.nanoTime();
            List<Future<Long>> started = new ArrayList<>();
            for (int i = 0; i < runs; i++) {
                started.add(starters.submit(() -> server.workflows().run(workflow.id(), null, null).run().id()));
            }
            List<Long> loaded = new ArrayList<>();
            for (Future<Long> f : started) {
                loaded.add(f.get());
            }
            starters.shutdown();
            awaitOver(server, loaded);
            double perSecond = runs / ((System.nanoTime() - startNanos) / 1e9);
            Percentiles loadedLatency = new Percentiles(stepLatencies(server, loaded));

            List<Long> idle = new ArrayList<>();
            for (int i = 0; i < sequential; i++) {
                long run = server.workflows().run(workflow.id(), null, null).run().id();
                awaitOver(server, List.of(run));
                idle.add(run);
            }
            Percentiles idleLatency = new Percentiles(stepLatencies(server, idle));
            return new double[] {perSecond, loadedLatency.at(50), loadedLatency.at(99), idleLatency.at(50),
                idleLatency.at(99)};
        }
    }

    private static void awaitOver(TickwheelServer server, List<Long> runs) throws InterruptedException {
        for (long run : runs) {
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
            while (server.workflows().getRun(run).orElseThrow().status() == WorkflowRun.Status.RUNNING) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("run " + run + " not over after 5 minutes");
                }
                Thread.sleep(5);
            }
        }
    }

    /** Per edge of each run: the child's claim time minus the parent's last update (its final status), in ms. */
    private static long[] stepLatencies(TickwheelServer server, List<Long> runs) {
        List<Long> samples = new ArrayList<>();
        for (long runId : runs) {
            WorkflowRun run = server.workflows().getRun(runId).orElseThrow();
            Map<String, Instance> byNode = new HashMap<>();
            for (WorkflowRun.NodeRun node : run.nodes()) {
                byNode.put(node.node(), server.instances().history(node.instanceId()).orElseThrow().instance());
            }
            for (String[] e : EDGES) {
                Instance parent = byNode.get(e[0]);
                Instance child = byNode.get(e[1]);
                samples.add(child.actualTriggerTime().toEpochMilli() - parent.updatedAt().toEpochMilli());
            }
        }
        return samples.stream().mapToLong(Long::longValue).toArray();
    }
}
