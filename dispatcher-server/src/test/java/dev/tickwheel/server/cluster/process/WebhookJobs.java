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
 * round-robin on the running members so that every member's job creation is exercised.
 *
 * <p>Stateless.
 */
final class WebhookJobs {

    /** A job of the test and the shard it and all its instances belong to. */
    record TestJob(long id, int shard, String createdVia) {
    }

    private WebhookJobs() {
    }

    /** The shards of {@code jobs}: where their instances are. */
    static Set<Integer> shardsOf(List<TestJob> jobs) {
        Set<Integer> shards = new TreeSet<>();
        jobs.forEach(job -> shards.add(job.shard()));
        return shards;
    }

    static List<TestJob> create(ClusterNodes nodes, String url, int count, String namePrefix) {
        List<MemberProcess> running = nodes.running();
        if (running.isEmpty()) {
            throw new IllegalStateException("no running member to create jobs on");
        }
        List<TestJob> jobs = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            MemberProcess via = running.get(i % running.size());
            String body = """
                    {"name": "%s-%d", "schedule": {"type": "API"},
                     "target": {"type": "WEBHOOK", "url": "%s"}, "retry": {"maxAttempts": 1}}"""
                    .formatted(namePrefix, i, url);
            ApiClient.Reply reply = via.call(api -> api.post("/api/jobs", body))
                    .orElseThrow(() -> new AssertionError(via + " stopped running while jobs were created"));
            if (reply.status() != 201) {
                throw new AssertionError("POST /api/jobs on " + via + " answered " + reply);
            }
            long id = Long.parseLong(reply.json().get("id").asText());
            jobs.add(new TestJob(id, Shards.of(id, Shards.DEFAULT_COUNT), via.name()));
        }
        return List.copyOf(jobs);
    }
}
