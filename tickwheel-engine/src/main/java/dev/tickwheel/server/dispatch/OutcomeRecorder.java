package dev.tickwheel.server.dispatch;

import dev.tickwheel.concurrent.Batcher;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.store.CallbackAttempt;
import dev.tickwheel.server.store.InstanceStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the outcome of each ended call, then gives its call slots back: calls {@link #record} an outcome from
 * whichever thread ended them; one thread ({@code tickwheel-outcome-1}, a {@link Batcher}) writes the successes of a
 * batch with one {@link InstanceStore#markAllSucceeded} statement ({@code DISPATCHING → SUCCEEDED}, per row a
 * compare-and-set) and each failure by itself (a retry, or FAILED when no attempt is left).
 *
 * <p>The server slot comes back only after the outcome is written (the job's and target's already when the call
 * ended, {@link CallSlots#callEnded}), so the rows DISPATCHING in the store are never more than the server slots held: a crash leaves at most the calls in flight to be delivered again. While the store refuses writes the
 * thread retries the same batch with a growing pause and holds its slots, which stops new claims: the server slows
 * down rather than losing track of outcomes.
 *
 * <p>Thread-safe: {@link #record} from any thread.
 *
 * <p>Caveats: an outcome not written when {@link #close()} gives up leaves its instance DISPATCHING; the next start
 * delivers it again with the same key (at-least-once), or marks it INTERRUPTED (AT_MOST_ONCE).
 */
final class OutcomeRecorder implements AutoCloseable {

    static final int DEFAULT_MAX_BATCH = 1_000;

    private static final Logger log = LoggerFactory.getLogger(OutcomeRecorder.class);
    private static final Duration FIRST_PAUSE = Duration.ofMillis(100);
    private static final Duration MAX_PAUSE = Duration.ofSeconds(5);

    /**
     * How one call ended: {@code failure} is null on success; {@code output} is the success's output (JSON text), or
     * null; {@code accepted} is true for a success of a job completing by callback, whose target only accepted the
     * work ({@link CallSlots#callAccepted}).
     */
    record Outcome(Instance instance, Job job, CallSlots.Ticket ticket, Throwable failure, String output,
                   boolean accepted) {
    }

    /** Decides and writes what a failed attempt becomes (a retry or FAILED); does nothing if the row moved on. */
    @FunctionalInterface
    interface FailureSettler {
        void settle(Outcome failed);
    }

    private final InstanceStore instances;
    private final Clock clock;
    private final CallSlots slots;
    private final DispatchListener listener;
    private final InstanceDispatcher.CompletionListener completions;
    private final FailureSettler failures;
    private final Consumer<Outcome> settled;
    private final AwaitedCallbacks awaited;
    private final WorkflowSteps workflowSteps;
    private final Batcher<Outcome> batcher;
    /** Set by close(): a batch the store keeps refusing is then given up instead of retried. */
    private volatile boolean closing;

    OutcomeRecorder(InstanceStore instances, Clock clock, int maxBatch, CallSlots slots, DispatchListener listener,
                    InstanceDispatcher.CompletionListener completions, FailureSettler failures,
                    Consumer<Outcome> settled, AwaitedCallbacks awaited, WorkflowSteps workflowSteps) {
        this.instances = Objects.requireNonNull(instances, "instances");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.slots = Objects.requireNonNull(slots, "slots");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.completions = Objects.requireNonNull(completions, "completions");
        this.failures = Objects.requireNonNull(failures, "failures");
        this.settled = Objects.requireNonNull(settled, "settled");
        this.awaited = Objects.requireNonNull(awaited, "awaited");
        this.workflowSteps = Objects.requireNonNull(workflowSteps, "workflowSteps");
        this.batcher = new Batcher<>("outcome", maxBatch, this::write, (batch, failure) -> {
            log.error("recording {} outcomes failed; their instances stay DISPATCHING until the next start",
                    batch.size(), failure);
            batch.forEach(this::done);
        });
    }

    /** Queues an ended call's outcome. Never blocks. */
    void record(Outcome outcome) {
        batcher.add(outcome);
    }

    private void write(List<Outcome> batch) {
        List<Outcome> succeeded = new ArrayList<>(batch.size());
        List<Outcome> accepted = new ArrayList<>(0);
        List<Outcome> steps = new ArrayList<>(0);
        for (Outcome outcome : batch) {
            if (outcome.accepted()) {
                accepted.add(outcome);
            } else if (outcome.failure() == null && outcome.instance().workflow() != null) {
                steps.add(outcome);
            } else if (outcome.failure() == null) {
                succeeded.add(outcome);
            }
        }
        if (!accepted.isEmpty()) {
            writeAccepted(accepted);
        }
        for (Outcome step : steps) {
            writeStep(step);
        }
        if (!succeeded.isEmpty()) {
            List<Long> ids = succeeded.stream().filter(o -> o.output() == null).map(o -> o.instance().id()).toList();
            Map<Long, String> outputs = new HashMap<>();
            succeeded.stream().filter(o -> o.output() != null).forEach(o -> outputs.put(o.instance().id(), o.output()));
            Set<Long> moved = untilWritten("record " + succeeded.size() + " successes", () -> {
                Set<Long> both = new HashSet<>(ids.isEmpty() ? Set.of() : instances.markAllSucceeded(ids));
                if (!outputs.isEmpty()) {
                    both.addAll(instances.markAllSucceeded(outputs));
                }
                return both;
            });
            Instant now = clock.instant();
            for (Outcome outcome : succeeded) {
                if (moved == null) {
                    break; // given up at close: the instances stay DISPATCHING
                }
                if (moved.contains(outcome.instance().id())) {
                    listener.succeeded(outcome.job().target().type());
                    log.debug("instance {} of job {} succeeded (attempt {})", outcome.instance().id(),
                            outcome.job().id(), outcome.instance().attempt());
                    completed(outcome, now);
                } else {
                    log.warn("instance {} was no longer DISPATCHING when its success was recorded",
                            outcome.instance().id());
                }
            }
        }
        for (Outcome outcome : batch) {
            try {
                if (outcome.failure() != null) {
                    untilWritten("record the failure of instance " + outcome.instance().id(), () -> {
                        failures.settle(outcome);
                        return Boolean.TRUE;
                    });
                }
            } finally {
                done(outcome);
            }
        }
    }

    /**
     * The targets of these calls accepted the work and will report by callback: each instance stays DISPATCHING with
     * its report due by the job's callback time-out. Its job slot is kept before the write, so that a report settled
     * meanwhile (on this member) frees it; it is freed here if the write finds the row moved on (reported already,
     * or the claim lost).
     */
    private void writeAccepted(List<Outcome> accepted) {
        Instant now = clock.instant();
        Map<CallbackAttempt, Instant> deadlines = new HashMap<>();
        for (Outcome outcome : accepted) {
            Instance instance = outcome.instance();
            deadlines.put(new CallbackAttempt(instance.id(), instance.attempt(), instance.claimEpoch()),
                    now.plusMillis(outcome.job().delivery().completion().callbackTimeoutMs()));
            awaited.keep(instance.id(), outcome.ticket());
        }
        Set<Long> moved = untilWritten("record " + accepted.size() + " calls accepted for a callback",
                () -> instances.acceptCallbacks(deadlines));
        for (Outcome outcome : accepted) {
            long id = outcome.instance().id();
            if (moved != null && moved.contains(id)) {
                listener.callbackAwaited();
                log.debug("instance {} of job {}: the target accepted attempt {}; its report is due by {}", id,
                        outcome.job().id(), outcome.instance().attempt(), deadlines.get(new CallbackAttempt(id,
                                outcome.instance().attempt(), outcome.instance().claimEpoch())));
            } else {
                awaited.ended(id); // reported already, or the claim is no longer this member's; or given up
            }
        }
    }

    /**
     * A workflow step succeeded: its success and the run's next step in one transaction
     * ({@link InstanceStore#succeedStep}); the instances that creates go to their owners.
     */
    private void writeStep(Outcome outcome) {
        Optional<List<Instance>> next = untilWritten("record the success of workflow step " + outcome.instance().id(),
                () -> instances.succeedStep(outcome.instance(), outcome.output(), workflowSteps.ids()));
        if (next == null) {
            return; // given up at close: it stays DISPATCHING
        }
        if (next.isPresent()) {
            listener.succeeded(outcome.job().target().type());
            next.get().forEach(workflowSteps.created());
            completed(outcome, clock.instant());
        } else {
            log.warn("workflow step {} was no longer DISPATCHING when its success was recorded",
                    outcome.instance().id());
        }
    }

    /** Tells the completion listener (fixed-delay follow-ups); its failure is logged, never the batch's. */
    void completed(Outcome outcome, Instant at) {
        try {
            completions.completed(outcome.job(), outcome.instance(), at);
        } catch (RuntimeException e) {
            log.error("completion of instance {} failed", outcome.instance().id(), e);
        }
    }

    /**
     * Runs a store write until it succeeds, pausing 100 ms, 200 ms, … up to 5 s between tries; gives up (returns
     * null) once closing.
     */
    private <T> T untilWritten(String what, Supplier<T> write) {
        Duration pause = FIRST_PAUSE;
        while (true) {
            try {
                return write.get();
            } catch (RuntimeException e) {
                if (closing) {
                    log.error("{} failed while closing; giving up", what, e);
                    return null;
                }
                log.warn("{} failed; trying again in {} ms: {}", what, pause.toMillis(), e.toString());
                try {
                    Thread.sleep(pause.toMillis());
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return null;
                }
                pause = pause.multipliedBy(2).compareTo(MAX_PAUSE) > 0 ? MAX_PAUSE : pause.multipliedBy(2);
            }
        }
    }

    /** Writes every queued outcome (trying once more each), then stops. Idempotent. */
    @Override
    public void close() {
        closing = true;
        List<Outcome> left = batcher.close(30, TimeUnit.SECONDS);
        left.forEach(this::done);
    }

    /** The outcome is written or given up: the server slot comes back and the claim no longer counts. */
    private void done(Outcome outcome) {
        slots.release(outcome.ticket());
        settled.accept(outcome);
    }
}
