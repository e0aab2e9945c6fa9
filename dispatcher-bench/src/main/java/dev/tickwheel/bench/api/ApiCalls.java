package dev.tickwheel.bench.api;

import dev.tickwheel.bench.api.LoadOperation.Outcome;
import dev.tickwheel.bench.api.SchedulingApi.Reply;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The six scheduling calls the benchmark measures, each as a {@link LoadOperation}: what a worker sends, and what in
 * the answer counts. Only a 2xx answer is a success; any other is an error counted by its status, with its body kept
 * as the first example. Runs due {@code delayMs} out never fire while the round runs.
 *
 * <pre>
 *   run          POST /api/jobs/{id}/run                {"delayMs":600000}                  1 per 2xx
 *   keyedRun     POST /api/jobs/{id}/run                {"key":"k-N","delayMs":600000}      1 per 2xx
 *   cancelById   POST /api/instances/{id}/cancel        (no body)                           1 per 2xx
 *   cancelByKey  POST /api/jobs/{id}/runs/{key}/cancel  (no body)                           1 per 2xx
 *   batchRun     POST /api/jobs/{id}/runs               {"runs":[{"key":"b-N",…},…]}        "created": true in the answer
 *   batchCancel  POST /api/instances/cancel             {"ids":["…",…]}                     "CANCELLED" outcomes in it
 * </pre>
 *
 * Keys are {@code k-N}, {@code b-N} and (the runs {@link #makeWaiting} makes for wrk's cancels) {@code w-N} with
 * {@code N} from one counter for the whole run, so no key repeats (the server warm-up's runs made for its cancels
 * by key are {@code k-N} too).
 * The runs' instance ids (and the keys' numbers) go into {@link IdPool}s, from which the cancel calls take them.
 *
 * <p>Thread-safe: the operations share only the thread-safe client, counter and pools.
 */
final class ApiCalls {

    private final SchedulingApi api;
    private final long delayMs;
    private final int batchSize;
    private final AtomicLong keyNumbers; // every key of the run, run and batch alike, is unique
    private final String runBody;

    ApiCalls(SchedulingApi api, long delayMs, int batchSize, AtomicLong keyNumbers) {
        this.api = api;
        this.delayMs = delayMs;
        this.batchSize = batchSize;
        this.keyNumbers = keyNumbers;
        this.runBody = "{\"delayMs\":" + delayMs + "}";
    }

    /** Single runs of {@code jobId} without a key; each new instance's id goes to {@code created}. */
    LoadOperation run(long jobId, IdPool created) {
        String path = "/api/jobs/" + jobId + "/run";
        return worker -> {
            Reply reply = api.post(path, runBody);
            if (!reply.ok()) {
                return failed(reply);
            }
            long[] ids = JsonScan.numbers(reply.body(), "instanceId");
            if (ids.length == 0) {
                return Outcome.error(reply.status() + " without instanceId", reply.body());
            }
            created.add(ids[0]);
            return Outcome.success(1);
        };
    }

    /** Single runs of {@code jobId}, each with a key no run had; each key's number goes to {@code keys}. */
    LoadOperation keyedRun(long jobId, IdPool keys) {
        String path = "/api/jobs/" + jobId + "/run";
        return worker -> {
            long n = keyNumbers.incrementAndGet();
            Reply reply = api.post(path, "{\"key\":\"k-" + n + "\",\"delayMs\":" + delayMs + "}");
            if (!reply.ok()) {
                return failed(reply);
            }
            keys.add(n);
            return Outcome.success(1);
        };
    }

    /** Cancels, one a call, of the instances in {@code ids}, oldest first. */
    LoadOperation cancelById(IdPool ids) {
        return worker -> {
            long id = ids.takeOne();
            if (id == IdPool.NONE) {
                return Outcome.exhausted();
            }
            Reply reply = api.post("/api/instances/" + id + "/cancel", null);
            return reply.ok() ? Outcome.success(1) : failed(reply);
        };
    }

    /** Cancels, one a call, of {@code jobId}'s runs by the keys numbered in {@code keys}, oldest first. */
    LoadOperation cancelByKey(long jobId, IdPool keys) {
        String prefix = "/api/jobs/" + jobId + "/runs/k-";
        return worker -> {
            long n = keys.takeOne();
            if (n == IdPool.NONE) {
                return Outcome.exhausted();
            }
            Reply reply = api.post(prefix + n + "/cancel", null);
            return reply.ok() ? Outcome.success(1) : failed(reply);
        };
    }

    /**
     * Batches of {@code batchSize} keyed runs of {@code jobId}; every instance id in the answers goes to
     * {@code created}. The items are the results that say {@code "created": true}; an answer without any
     * {@code created} field counts every instance id in it.
     */
    LoadOperation batchRun(long jobId, IdPool created) {
        String path = "/api/jobs/" + jobId + "/runs";
        return worker -> {
            long first = keyNumbers.getAndAdd(batchSize) + 1;
            StringBuilder body = new StringBuilder(40 * batchSize).append("{\"runs\":[");
            for (int i = 0; i < batchSize; i++) {
                body.append(i == 0 ? "" : ",").append("{\"key\":\"b-").append(first + i).append("\",\"delayMs\":")
                        .append(delayMs).append('}');
            }
            Reply reply = api.post(path, body.append("]}").toString());
            if (!reply.ok()) {
                return failed(reply);
            }
            long[] ids = JsonScan.numbers(reply.body(), "instanceId");
            if (ids.length == 0) {
                return Outcome.error(reply.status() + " without instanceId", reply.body());
            }
            for (long id : ids) {
                created.add(id);
            }
            String answer = reply.body();
            return Outcome.success(JsonScan.has(answer, "created") ? JsonScan.count(answer, "created", "true")
                    : ids.length);
        };
    }

    /**
     * Batch cancels of up to {@code batchSize} instances of {@code ids}, oldest first. The items are the results that
     * say {@code "outcome": "CANCELLED"}; an answer without any {@code outcome} field counts every id sent.
     */
    LoadOperation batchCancel(IdPool ids) {
        return worker -> {
            long[] batch = ids.take(batchSize);
            if (batch.length == 0) {
                return Outcome.exhausted();
            }
            StringBuilder body = new StringBuilder(24 * batch.length).append("{\"ids\":[");
            for (int i = 0; i < batch.length; i++) {
                body.append(i == 0 ? "\"" : ",\"").append(batch[i]).append('"');
            }
            Reply reply = api.post("/api/instances/cancel", body.append("]}").toString());
            if (!reply.ok()) {
                return failed(reply);
            }
            String answer = reply.body();
            return Outcome.success(JsonScan.has(answer, "outcome")
                    ? JsonScan.count(answer, "outcome", "\"CANCELLED\"") : batch.length);
        };
    }

    /**
     * Makes {@code count} WAITING runs of {@code jobId}, due {@code delayMs} out, with batch calls
     * ({@code POST /api/jobs/{id}/runs}, {@code batchSize} runs each, {@code inFlight} calls at a time), for a later
     * phase to cancel; not a measured phase.
     *
     * @param keyPrefix each run's key is this and a number of the run's key counter ({@code w-N}); null: no keys
     * @return the runs' instance ids, or with a {@code keyPrefix} their keys, in the order of the calls
     * @throws IllegalStateException if a call fails or does not create every run it carries
     */
    List<String> makeWaiting(long jobId, int count, String keyPrefix, int inFlight) throws InterruptedException {
        boolean keyed = keyPrefix != null;
        String path = "/api/jobs/" + jobId + "/runs";
        ExecutorService pool = Executors.newFixedThreadPool(inFlight, r -> {
            Thread t = new Thread(r, "tickwheel-bench-make-waiting");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<List<String>>> calls = new ArrayList<>();
            for (int made = 0; made < count; made += batchSize) {
                int n = Math.min(batchSize, count - made);
                calls.add(pool.submit(() -> {
                    long first = keyNumbers.getAndAdd(n) + 1;
                    List<String> keys = new ArrayList<>(n);
                    StringBuilder body = new StringBuilder(40 * n).append("{\"runs\":[");
                    for (int i = 0; i < n; i++) {
                        body.append(i == 0 ? "{" : ",{");
                        if (keyed) {
                            String key = keyPrefix + (first + i);
                            keys.add(key);
                            body.append("\"key\":\"").append(key).append("\",");
                        }
                        body.append("\"delayMs\":").append(delayMs).append('}');
                    }
                    Reply reply = api.post(path, body.append("]}").toString());
                    long[] ids = reply.ok() ? JsonScan.numbers(reply.body(), "instanceId") : new long[0];
                    int created = JsonScan.has(reply.body(), "created") ? JsonScan.count(reply.body(), "created",
                            "true") : ids.length;
                    if (!reply.ok() || ids.length != n || created != n) {
                        String answer = reply.body().length() > 300 ? reply.body().substring(0, 300) + "…"
                                : reply.body();
                        throw new IllegalStateException("POST " + path + " with " + n + " runs answered "
                                + reply.status() + " (" + ids.length + " ids, " + created + " created): " + answer);
                    }
                    if (keyed) {
                        return keys;
                    }
                    List<String> out = new ArrayList<>(n);
                    for (long id : ids) {
                        out.add(Long.toString(id));
                    }
                    return out;
                }));
            }
            List<String> all = new ArrayList<>(count);
            for (Future<List<String>> call : calls) {
                try {
                    all.addAll(call.get());
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    throw cause instanceof RuntimeException r ? r
                            : new IllegalStateException("making WAITING runs failed: " + cause, cause);
                }
            }
            return all;
        } finally {
            pool.shutdownNow();
        }
    }

    private static Outcome failed(Reply reply) {
        return Outcome.error(String.valueOf(reply.status()), reply.body());
    }
}
