package dev.tickwheel.server.metrics;

import dev.tickwheel.server.dispatch.DispatchListener;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.TargetType;
import dev.tickwheel.time.MisfirePolicy;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Records dispatch outcomes as Micrometer meters: {@code tickwheel.fire.lateness} (a timer with a histogram,
 * Prometheus {@code tickwheel_fire_lateness_seconds_bucket}), {@code tickwheel.dispatch} counters tagged
 * {@code target} (WEBHOOK, HANDLER) and {@code outcome} (success, failure, retry),
 * {@code tickwheel.dispatch.claim.lost}, {@code tickwheel.dispatch.skipped}, and {@code tickwheel.cluster.fenced}
 * tagged {@code what} (fire, claim, call: work let go because this member does not hold the shard), and
 * {@code tickwheel.callbacks} tagged {@code outcome} (ACCEPTED, SUCCEEDED, FAILED, RUNNING, TIMED_OUT: jobs
 * completing by callback), {@code tickwheel.misfires} tagged {@code policy} (missed triggers a misfire policy dropped; kept out of lateness,
 * which only fired instances reach), and {@code tickwheel.job.calls} (a timer, Prometheus
 * {@code tickwheel_job_calls_seconds_count|sum|max}) tagged {@code job} and {@code outcome} (success, failure): each
 * call's duration per job. The {@code job} tag is the job id for the first {@value JobLabels#DEFAULT_LIMIT} jobs
 * seen and {@code other} for the rest (see {@link JobLabels}), so a server with many jobs cannot explode the series.
 *
 * <p>Thread-safe: every meter is created in the constructor, so each call is one lock-free increment.
 *
 * <p>Caveats: lateness below zero cannot happen (the wheels never fire early) and is recorded as zero.
 */
public final class DispatchMetrics implements DispatchListener {

    /** Histogram buckets of fire lateness: one tick, a few ticks, then up to a loader period. */
    static final Duration[] LATENESS_BUCKETS = {
        Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(5), Duration.ofMillis(10),
        Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250),
        Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(15)};

    private final Timer lateness;
    private final Counter claimLost;
    private final Counter skipped;
    private final Counter calendarSkipped;
    private final Map<TargetType, Counter> successes = new EnumMap<>(TargetType.class);
    private final Map<TargetType, Counter> failures = new EnumMap<>(TargetType.class);
    private final Map<TargetType, Counter> retries = new EnumMap<>(TargetType.class);
    private final Map<String, Counter> fenced = new java.util.HashMap<>();
    /** {@code tickwheel.callbacks} by outcome: accepted (awaited), SUCCEEDED, FAILED, RUNNING, TIMED_OUT. */
    private final Map<String, Counter> callbacks = new java.util.HashMap<>();
    private final Map<MisfirePolicy, Counter> misfires = new EnumMap<>(MisfirePolicy.class);
    private final MeterRegistry registry;
    private final JobLabels jobLabels = new JobLabels(JobLabels.DEFAULT_LIMIT);
    /** Per job label, registered on first use; at most {@link JobLabels#DEFAULT_LIMIT} + 1 entries each. */
    private final Map<String, Timer> jobCallSuccesses = new ConcurrentHashMap<>();
    private final Map<String, Timer> jobCallFailures = new ConcurrentHashMap<>();

    public DispatchMetrics(MeterRegistry registry) {
        this.registry = registry;
        lateness = Timer.builder("tickwheel.fire.lateness")
                .description("actual minus expected trigger time of fired instances")
                .serviceLevelObjectives(LATENESS_BUCKETS)
                .register(registry);
        claimLost = Counter.builder("tickwheel.dispatch.claim.lost")
                .description("fires whose claim lost: the instance was cancelled or already claimed")
                .register(registry);
        calendarSkipped = Counter.builder("tickwheel.schedule.calendar.skipped")
                .description("trigger times that got no instance because their day is excluded by the job's calendar")
                .register(registry);
        skipped = Counter.builder("tickwheel.dispatch.skipped")
                .description("instances cancelled because their job was at maxConcurrent with overLimit SKIP")
                .register(registry);
        for (String outcome : new String[] {"ACCEPTED", "SUCCEEDED", "FAILED", "RUNNING", "TIMED_OUT"}) {
            callbacks.put(outcome, Counter.builder("tickwheel.callbacks")
                    .description("attempts of jobs completing by callback: ACCEPTED = the target accepted the call and"
                            + " the instance awaits its report; SUCCEEDED, FAILED = reports; RUNNING = heartbeats;"
                            + " TIMED_OUT = no report by the deadline")
                    .tag("outcome", outcome).register(registry));
        }
        for (String what : new String[] {"fire", "claim", "call"}) {
            fenced.put(what, Counter.builder("tickwheel.cluster.fenced")
                    .description("work this member let go because it does not hold the shard: fire = a timer for a"
                            + " shard held elsewhere, claim = refused by the store's lease fence, call = lease lapsed"
                            + " between claim and call")
                    .tag("what", what).register(registry));
        }
        for (MisfirePolicy policy : MisfirePolicy.values()) {
            misfires.put(policy, Counter.builder("tickwheel.misfires")
                    .description("missed triggers (older than the misfire threshold) that the job's misfire policy"
                            + " dropped: never created by the loader, or cancelled by a shard's recovery")
                    .tag("policy", policy.name()).register(registry));
        }
        for (TargetType type : TargetType.values()) {
            successes.put(type, outcome(registry, type, "success"));
            failures.put(type, outcome(registry, type, "failure"));
            retries.put(type, outcome(registry, type, "retry"));
        }
    }

    private static Counter outcome(MeterRegistry registry, TargetType type, String outcome) {
        return Counter.builder("tickwheel.dispatch")
                .description("dispatch attempts by target type and outcome")
                .tag("target", type.name())
                .tag("outcome", outcome)
                .register(registry);
    }

    @Override
    public void fired(Duration late) {
        lateness.record(late.isNegative() ? Duration.ZERO : late);
    }

    @Override
    public void fenced(String what) {
        Counter counter = fenced.get(what);
        if (counter != null) {
            counter.increment();
        }
    }

    @Override
    public void callbackAwaited() {
        callbacks.get("ACCEPTED").increment();
    }

    @Override
    public void callbackSettled(String outcome) {
        Counter counter = callbacks.get(outcome);
        if (counter != null) {
            counter.increment();
        }
    }

    @Override
    public void callEnded(long jobId, boolean ok, Duration duration) {
        // Once per call: a map read, not a meter lookup in the registry (which builds an id per call).
        String job = jobLabels.of(jobId);
        Timer timer = ok ? jobCallSuccesses.computeIfAbsent(job, this::jobCallSuccess)
                : jobCallFailures.computeIfAbsent(job, this::jobCallFailure);
        timer.record(duration);
    }

    private Timer jobCallSuccess(String job) {
        return jobCalls(job, "success");
    }

    private Timer jobCallFailure(String job) {
        return jobCalls(job, "failure");
    }

    private Timer jobCalls(String job, String outcome) {
        return Timer.builder("tickwheel.job.calls")
                .description("calls per job (job id, or \"other\" past the first " + JobLabels.DEFAULT_LIMIT
                        + " jobs seen) and outcome, and how long each took")
                .tag("job", job)
                .tag("outcome", outcome)
                .register(registry);
    }

    @Override
    public void misfiresDropped(Job job, int count, Instant firstMissed) {
        misfires.get(job.misfirePolicy()).increment(count);
    }

    @Override
    public void triggersSkippedByCalendar(Job job, int count) {
        calendarSkipped.increment(count);
    }

    @Override
    public void skipped() {
        skipped.increment();
    }

    @Override
    public void claimLost() {
        claimLost.increment();
    }

    @Override
    public void succeeded(TargetType type) {
        successes.get(type).increment();
    }

    @Override
    public void failed(TargetType type) {
        failures.get(type).increment();
    }

    @Override
    public void retried(TargetType type) {
        retries.get(type).increment();
    }
}
