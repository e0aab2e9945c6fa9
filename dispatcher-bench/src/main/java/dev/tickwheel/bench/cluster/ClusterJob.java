package dev.tickwheel.bench.cluster;

import dev.tickwheel.server.store.Shards;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * A job of a take-over run, and the shard it and all its instances belong to ({@link Shards#of}).
 *
 * <p>Immutable.
 */
record ClusterJob(long id, int shard) {

    /**
     * Creates {@code count} on-demand webhook jobs to {@code url} through the API, round-robin over the running
     * members (every member's job creation is exercised).
     */
    static List<ClusterJob> create(ClusterProcesses cluster, String url, int count, int shardCount) {
        List<Member> running = cluster.running();
        if (running.isEmpty()) {
            throw new IllegalStateException("no running member to create jobs on");
        }
        List<ClusterJob> jobs = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            Member via = running.get(i % running.size());
            String name = "cluster-bench-" + i;
            long id = via.call(api -> api.createWebhookJob(name, url))
                    .orElseThrow(() -> new IllegalStateException(via + " stopped running while jobs were created"));
            jobs.add(new ClusterJob(id, Shards.of(id, shardCount)));
        }
        return List.copyOf(jobs);
    }

    /** The shards of {@code jobs}: where their instances are. */
    static Set<Integer> shardsOf(List<ClusterJob> jobs) {
        Set<Integer> shards = new TreeSet<>();
        jobs.forEach(job -> shards.add(job.shard()));
        return shards;
    }
}
