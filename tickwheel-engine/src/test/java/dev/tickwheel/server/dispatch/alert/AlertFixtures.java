package dev.tickwheel.server.dispatch.alert;

import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.JobOperations;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.time.MisfirePolicy;
import dev.tickwheel.time.ScheduleSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/** Jobs, instances, a worker the test runs by hand and an outcome counter, shared by the alert tests. */
final class AlertFixtures {

    static final Instant T0 = Instant.parse("2031-05-06T07:00:00Z");
    static final String JOB_SECRET = "job-secret-0123456789";
    static final String SERVER_SECRET = "server-secret-0123456789";

    private AlertFixtures() {
    }

    /** A job with its own alert URL and secret (either may be null). */
    static Job job(long id, String alertUrl, String secret, MisfirePolicy misfirePolicy) {
        return new Job(id, "job " + id, ScheduleSpec.api(), Target.webhook("http://127.0.0.1:9/hook"), null, true,
                misfirePolicy, RetryPolicy.NONE, DeliveryPolicy.DEFAULT, new JobOperations(null, alertUrl, secret),
                null, T0, T0, 0);
    }

    static Job job(long id, String alertUrl) {
        return job(id, alertUrl, null, MisfirePolicy.SKIP);
    }

    /** An instance of {@code job} as its attempt {@code attempt} was claimed, due at {@code due}. */
    static Instance instance(long id, Job job, int attempt, Instant due) {
        return new Instance(id, job.id(), InstanceStatus.DISPATCHING, due, due, due, attempt, null, null, null, due,
                due, 0, 3, 1, null, null, null, null, null, null);
    }

    /** Counts alert outcomes per kind. Thread-safe. */
    static final class Outcomes implements AlertListener {
        private final Map<AlertKind, Map<AlertOutcome, AtomicInteger>> counts = new ConcurrentHashMap<>();

        @Override
        public void alertEnded(AlertKind kind, AlertOutcome outcome) {
            counts.computeIfAbsent(kind, k -> new ConcurrentHashMap<>())
                    .computeIfAbsent(outcome, o -> new AtomicInteger()).incrementAndGet();
        }

        int of(AlertKind kind, AlertOutcome outcome) {
            AtomicInteger count = counts.getOrDefault(kind, Map.of()).get(outcome);
            return count == null ? 0 : count.get();
        }

        /** Every non-zero count, e.g. {@code {INSTANCE_FAILED={SENT=1}}}. */
        Map<AlertKind, Map<AlertOutcome, Integer>> all() {
            Map<AlertKind, Map<AlertOutcome, Integer>> all = new EnumMap<>(AlertKind.class);
            counts.forEach((kind, byOutcome) -> byOutcome.forEach((outcome, count) ->
                    all.computeIfAbsent(kind, k -> new EnumMap<>(AlertOutcome.class)).put(outcome, count.get())));
            return all;
        }
    }

    /**
     * Runs the alerter's tasks when the test says so; records the pause of each scheduled one. Thread-safe (a call
     * that ends on an HTTP client thread schedules its retry from there); tasks run on the test's thread.
     */
    static final class ManualWorker implements Alerter.Worker {
        record Scheduled(Runnable task, Duration delay) {
        }

        private final List<Runnable> now = new ArrayList<>();
        private final List<Scheduled> scheduled = new ArrayList<>();
        private final List<Duration> delays = new ArrayList<>();
        private boolean shutdown;

        @Override
        public synchronized void execute(Runnable task) {
            if (shutdown) {
                throw new RejectedExecutionException("shut down");
            }
            now.add(task);
        }

        @Override
        public synchronized void schedule(Runnable task, Duration delay) {
            if (shutdown) {
                throw new RejectedExecutionException("shut down");
            }
            scheduled.add(new Scheduled(task, delay));
            delays.add(delay);
        }

        @Override
        public void shutdown(Duration wait) {
            synchronized (this) {
                shutdown = true;
            }
            runNow();
            synchronized (this) {
                scheduled.clear(); // as the real one: retries waiting for their pause do not run
            }
        }

        /** Runs the tasks handed over, and those they hand over, in order. */
        void runNow() {
            Runnable next;
            while ((next = nextNow()) != null) {
                next.run();
            }
        }

        private synchronized Runnable nextNow() {
            return now.isEmpty() ? null : now.remove(0);
        }

        /** Runs the tasks scheduled so far (their pause has passed), then what they handed over. */
        void runScheduled() {
            List<Scheduled> due;
            synchronized (this) {
                due = new ArrayList<>(scheduled);
                scheduled.clear();
            }
            due.forEach(s -> s.task().run());
            runNow();
        }

        synchronized int queued() {
            return now.size();
        }

        synchronized int scheduledCount() {
            return scheduled.size();
        }

        /** The pause of every task scheduled so far, in order. */
        synchronized List<Duration> delays() {
            return List.copyOf(delays);
        }
    }
}
