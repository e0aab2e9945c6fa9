package dev.tickwheel.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.instance.InstanceHistory;
import dev.tickwheel.server.instance.CancelOutcome;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.RunWrite;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.time.ScheduleSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cancels fired at instances at their trigger moment, thousands of times, against the real store and wheel: an
 * instance must never be both cancelled and dispatched, and is dispatched at most once.
 */
class CancelDispatchRaceStressTest {

    private static final int ROUNDS = 10;
    private static final int PER_ROUND = 300;

    @TempDir
    Path dataDir;

    @Test
    void cancel_atTriggerMoment_neverBothCancelledAndDispatched() throws Exception {
        Map<Long, AtomicInteger> deliveries = new ConcurrentHashMap<>();
        Map<Long, CancelOutcome> outcomes = new ConcurrentHashMap<>();
        // A cancel that throws is a failure of its own, reported as such (not as a missing outcome later).
        java.util.Queue<Throwable> cancelFailures = new java.util.concurrent.ConcurrentLinkedQueue<>();
        List<Long> all = new ArrayList<>();
        try (TickwheelServer server = TickwheelServer.builder()
                .jdbcUrl("jdbc:h2:file:" + dataDir.resolve("race").toAbsolutePath())
                .handler("record", ctx -> deliveries.computeIfAbsent(ctx.instanceId(), id -> new AtomicInteger())
                        .incrementAndGet())
                .build()
                .start()) {
            Job job = server.jobs().create(JobSpec.of("race", ScheduleSpec.api(), Target.handler("record")));
            for (int round = 0; round < ROUNDS; round++) {
                // One transaction, all due at once: however slow the machine, none fires before the race starts.
                List<Instance> batch = new ArrayList<>(server.jobs()
                        .runAll(job.id(), Collections.nCopies(PER_ROUND, RunSpec.after(150, null))).stream()
                        .map(RunWrite::instance).toList());
                Instant trigger = batch.get(0).expectedTriggerTime();
                Collections.shuffle(batch);
                Thread[] cancellers = new Thread[2];
                for (int t = 0; t < cancellers.length; t++) {
                    int first = t;
                    cancellers[t] = new Thread(() -> {
                        // Start a little before they are due: the cancels race the firing of the whole batch.
                        while (Instant.now().isBefore(trigger.minusMillis(2))) {
                            Thread.onSpinWait();
                        }
                        for (int i = first; i < batch.size(); i += cancellers.length) {
                            long id = batch.get(i).id();
                            try {
                                outcomes.put(id, server.instances().cancel(id).outcome());
                            } catch (RuntimeException e) {
                                cancelFailures.add(e);
                            }
                        }
                    });
                    cancellers[t].start();
                }
                for (Thread canceller : cancellers) {
                    canceller.join();
                }
                if (!cancelFailures.isEmpty()) {
                    throw new AssertionError(cancelFailures.size() + " cancels failed in round " + round,
                            cancelFailures.peek());
                }
                batch.forEach(instance -> all.add(instance.id()));
            }
            Await.until("every instance settled", Duration.ofSeconds(30), () -> all.stream().allMatch(id -> {
                InstanceStatus status = server.instances().history(id)
                        .map(InstanceHistory::instance).orElseThrow().status();
                return status == InstanceStatus.SUCCEEDED || status == InstanceStatus.CANCELLED;
            }));

            Map<CancelOutcome, Integer> seen = new EnumMap<>(CancelOutcome.class);
            int violations = 0;
            for (long id : all) {
                CancelOutcome outcome = outcomes.get(id);
                seen.merge(outcome, 1, Integer::sum);
                int delivered = deliveries.getOrDefault(id, new AtomicInteger()).get();
                InstanceStatus status = server.instances().history(id)
                        .map(InstanceHistory::instance).orElseThrow().status();
                boolean ok = switch (outcome) {
                    case CANCELLED -> delivered == 0 && status == InstanceStatus.CANCELLED;
                    case ALREADY_DISPATCHED, ALREADY_FINISHED -> delivered == 1 && status == InstanceStatus.SUCCEEDED;
                    case UNKNOWN -> false;
                };
                if (!ok) {
                    violations++;
                }
            }
            assertEquals(0, violations, "outcomes " + seen);
            assertTrue(seen.getOrDefault(CancelOutcome.CANCELLED, 0) > 0
                    && seen.getOrDefault(CancelOutcome.CANCELLED, 0) < all.size(),
                    "the race had both winners and losers: " + seen);
        }
    }
}
