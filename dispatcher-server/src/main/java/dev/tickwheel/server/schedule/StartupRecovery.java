package dev.tickwheel.server.schedule;

import dev.tickwheel.server.dispatch.InstanceDispatcher;
import dev.tickwheel.server.dispatch.JobCatalog;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.time.MisfirePolicy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilds the wheels from the store when a server starts: the store is the truth, the wheels only a cache of it.
 *
 * <ul>
 *   <li>Every WAITING instance is armed for its trigger time.</li>
 *   <li>A scheduled, first-attempt WAITING instance whose trigger time is older than the misfire threshold follows its
 *       job's misfire policy, per job: FIRE_ONCE_NOW fires the latest and cancels the others, SKIP cancels them all,
 *       FIRE_ALL fires them all. On-demand (API) instances and retries always fire: somebody asked for them.</li>
 *   <li>A DISPATCHING instance was interrupted mid-call by the stop. If the job's retry policy allows another attempt it
 *       goes back to WAITING and fires now; otherwise it is FAILED with the reason. The target may therefore see it
 *       twice (at-least-once for a call that was in flight).</li>
 * </ul>
 *
 * <p>Not thread-safe: run once, before the loader starts.
 *
 * <p>Caveats: in a cluster, DISPATCHING rows of another live server must not be settled; this class assumes it is the
 * only server on its store.
 */
public final class StartupRecovery {

    private static final Logger log = LoggerFactory.getLogger(StartupRecovery.class);
    private static final int PAGE = 1_000;

    private final InstanceStore instances;
    private final JobCatalog jobs;
    private final InstanceDispatcher dispatcher;
    private final Clock clock;
    private final Duration misfireThreshold;

    /** What a recovery did, for the start-up log line and tests. */
    public record Report(int rearmed, int firedOverdue, int cancelledMisfires, int retriedInterrupted,
                         int failedInterrupted) {
    }

    public StartupRecovery(InstanceStore instances, JobCatalog jobs, InstanceDispatcher dispatcher, Clock clock,
                           Duration misfireThreshold) {
        this.instances = Objects.requireNonNull(instances, "instances");
        this.jobs = Objects.requireNonNull(jobs, "jobs");
        this.dispatcher = Objects.requireNonNull(dispatcher, "dispatcher");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.misfireThreshold = Objects.requireNonNull(misfireThreshold, "misfireThreshold");
    }

    public Report run() {
        Instant now = clock.instant();
        int[] interrupted = settleInterrupted(now);
        int rearmed = 0;
        Map<Long, List<Instance>> overdueByJob = new HashMap<>();
        long after = 0;
        while (true) {
            List<Instance> page = instances.findWaiting(after, PAGE);
            for (Instance instance : page) {
                if (isMisfire(instance, now)) {
                    overdueByJob.computeIfAbsent(instance.jobId(), id -> new ArrayList<>()).add(instance);
                } else {
                    dispatcher.arm(instance.id(), instance.expectedTriggerTime());
                    rearmed++;
                }
            }
            if (page.size() < PAGE) {
                break;
            }
            after = page.get(page.size() - 1).id();
        }
        int fired = 0;
        int cancelled = 0;
        for (Map.Entry<Long, List<Instance>> entry : overdueByJob.entrySet()) {
            List<Instance> overdue = entry.getValue();
            overdue.sort(Comparator.comparing(Instance::expectedTriggerTime));
            MisfirePolicy policy = jobs.get(entry.getKey()).map(Job::misfirePolicy).orElse(MisfirePolicy.FIRE_ONCE_NOW);
            for (int i = 0; i < overdue.size(); i++) {
                Instance instance = overdue.get(i);
                boolean keep = switch (policy) {
                    case FIRE_ALL -> true;
                    case SKIP -> false;
                    case FIRE_ONCE_NOW -> i == overdue.size() - 1;
                };
                if (keep) {
                    dispatcher.arm(instance.id(), now);
                    fired++;
                } else {
                    instances.cancel(instance.id());
                    cancelled++;
                }
            }
        }
        Report report = new Report(rearmed, fired, cancelled, interrupted[0], interrupted[1]);
        log.info("recovery: {} waiting instances re-armed, {} overdue fired now, {} misfires cancelled, "
                        + "{} interrupted dispatches retried, {} failed", report.rearmed(), report.firedOverdue(),
                report.cancelledMisfires(), report.retriedInterrupted(), report.failedInterrupted());
        return report;
    }

    private boolean isMisfire(Instance instance, Instant now) {
        return !instance.isOnDemand() && instance.attempt() == 0
                && instance.expectedTriggerTime().isBefore(now.minus(misfireThreshold));
    }

    private int[] settleInterrupted(Instant now) {
        int retried = 0;
        int failed = 0;
        long after = 0;
        while (true) {
            List<Instance> page = instances.findDispatching(after, PAGE);
            for (Instance instance : page) {
                Optional<Job> job = jobs.get(instance.jobId());
                boolean retry = job.isPresent() && job.get().retryPolicy().allowsAnotherAttempt(instance.attempt());
                String reason = "server stopped during dispatch (attempt " + instance.attempt()
                        + job.map(j -> " of " + j.retryPolicy().maxAttempts()).orElse("") + ")";
                if (retry && instances.retry(instance.id(), now, reason)) {
                    dispatcher.arm(instance.id(), now);
                    retried++;
                } else if (instances.markFailed(instance.id(), reason)) {
                    failed++;
                }
            }
            if (page.size() < PAGE) {
                break;
            }
            after = page.get(page.size() - 1).id();
        }
        return new int[] {retried, failed};
    }
}
