package dev.tickwheel.server.cluster.process;

import dev.tickwheel.server.api.ApiClient;
import dev.tickwheel.server.store.Shards;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Creates the tests' jobs: on-demand ({@code "schedule": {"type": "API"}}) webhooks to the ledger, one attempt each
 * (any failed call then shows as a FAILED instance with its error, and any second key is a bug, not a retry), created
 * round-robin on the running members so that every member's job creation is exercised. Without a
 * {@code maxConcurrent} they spread their instances over the shards ({@link TestJob#shardOf}); with one, their
 * instances stay on the job's shard.
 *
 * <p>Stateless.
 */
final class WebhookJobs {

    /**
     * A job of the test: its shard (whose owner loads it) and whether its instances are spread over the shards.
     */
    record TestJob(long id, int shard, String createdVia, boolean spread) {

        /** The shard of an instance of this job. */
        int shardOf(long instanceId) {
            return Shards.ofInstance(instanceId, id, spread, Shards.DEFAULT_COUNT);
        }
    }

    private WebhookJobs() {
    }

    /** The shards of {@code jobs}: whose owners load them. */
    static Set<Integer> shardsOf(List<TestJob> jobs) {
        Set<Integer> shards = new TreeSet<>();
        jobs.forEach(job -> shards.add(job.shard()));
        return shards;
    }

    static List<TestJob> create(ClusterNodes nodes, String url, int count, String namePrefix) {
        return create(nodes, url, count, namePrefix, 0);
    }

    /** As {@link #create(ClusterNodes, String, int, String)}; a {@code maxConcurrent} above 0 keeps one owner. */
    static List<TestJob> create(ClusterNodes nodes, String url, int count, String namePrefix, int maxConcurrent) {
        List<MemberProcess> running = nodes.running();
        if (running.isEmpty()) {
            throw new IllegalStateException("no running member to create jobs on");
        }
        List<TestJob> jobs = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            MemberProcess via = running.get(i % running.size());
            String body = """
                    {"name": "%s-%d", "schedule": {"type": "API"},
                     "target": {"type": "WEBHOOK", "url": "%s"}, "retry": {"maxAttempts": 1}%s}"""
                    .formatted(namePrefix, i, url, maxConcurrent > 0
                            ? ", \"maxConcurrent\": " + maxConcurrent : "");
            ApiClient.Reply reply = via.call(api -> api.post("/api/jobs", body))
                    .orElseThrow(() -> new AssertionError(via + " stopped running while jobs were created"));
            if (reply.status() != 201) {
                throw new AssertionError("POST /api/jobs on " + via + " answered " + reply);
            }
            long id = Long.parseLong(reply.json().get("id").asText());
            jobs.add(new TestJob(id, Shards.of(id, Shards.DEFAULT_COUNT), via.name(), maxConcurrent == 0));
        }
        return List.copyOf(jobs);
    }
}
