package dev.tickwheel.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceHistory;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.instance.RescheduleOutcome;
import dev.tickwheel.server.instance.RunWrite;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.time.ScheduleSpec;
import dev.tickwheel.time.SettableClock;
import dev.tickwheel.timer.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reschedules aimed at the moment instances fire, against the real store, wheel and dispatcher: each instance must be
 * delivered exactly once, at its old time when the reschedule was refused (ALREADY_DISPATCHED, ALREADY_FINISHED) and
 * at its new time when it was accepted (RESCHEDULED), never both and never neither.
 *
 * <p>Why it holds: the store decides. A reschedule is a compare-and-set on WAITING that moves the due time; a claim is
 * a compare-and-set on WAITING that also requires the due time not to be later than the time its timer was armed for
 * ({@code InstanceStore.claimArmed}). So whichever commits first wins: a claim first makes the reschedule see
 * DISPATCHING (refused, the instance runs at its old time); a reschedule first makes the old timer's claim fail (its
 * armed-for time is now earlier than the due time), and the timer armed for the new time claims it then. The two
 * statements lock the same row, so there is no third order.
 */
class RescheduleRaceStressTest {

    private static final Duration OLD_DELAY = Duration.ofSeconds(1);
    private static final Duration MOVE_BY = Duration.ofSeconds(5);
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dataDir;

    /** What the handler saw: the due time of every delivery, per instance. */
    private final Map<Long, List<Instant>> delivered = new ConcurrentHashMap<>();
    /** Counted down by every delivery: the real-time race starts when a round's first instance is delivered. */
    private final AtomicReference<CountDownLatch> firstDelivery = new AtomicReference<>(new CountDownLatch(0));

    private TickwheelServer.Builder server(String name) {
        return TickwheelServer.builder()
                .jdbcUrl("jdbc:h2:file:" + dataDir.resolve(name).toAbsolutePath())
                .handler("record", ctx -> {
                    delivered.computeIfAbsent(ctx.instanceId(), id -> new CopyOnWriteArrayList<>())
                            .add(ctx.expectedTriggerTime());
                    firstDelivery.get().countDown();
                });
    }

    /**
     * Settable time, a thousand races: the wheel's ticker and the engine's clock move together, one second at a time,
     * while two threads reschedule the instances that fall due in that step.
     */
    @Test
    void reschedule_racingTheFireOnASettableClock_firesOnceAtTheTimeTheAnswerSays() throws Exception {
        ManualClock ticker = new ManualClock();
        SettableClock clock = new SettableClock(Instant.parse("2030-03-01T08:00:00Z"));
        Map<Long, RescheduleOutcome> answers = new ConcurrentHashMap<>();
        Map<Long, Instant> oldTimes = new ConcurrentHashMap<>();
        try (TickwheelServer server = server("settable").clock(clock).ticker(ticker).build().start()) {
            Job job = server.jobs().create(JobSpec.of("moved", ScheduleSpec.api(), Target.handler("record")));
            for (int round = 0; round < 4; round++) {
                List<Instance> batch = new ArrayList<>();
                for (int i = 0; i < 250; i++) {
                    Instance instance = server.jobs().run(job.id(), OLD_DELAY.toMillis(), null);
                    batch.add(instance);
                    oldTimes.put(instance.id(), instance.expectedTriggerTime());
                }
                Collections.shuffle(batch);
                Instant newTime = clock.instant().plus(OLD_DELAY).plus(MOVE_BY);
                CountDownLatch go = new CountDownLatch(1);
                List<Thread> movers = new ArrayList<>();
                for (int t = 0; t < 2; t++) {
                    int first = t;
                    Thread mover = new Thread(() -> {
                        awaitQuietly(go);
                        for (int i = first; i < batch.size(); i += 2) {
                            long id = batch.get(i).id();
                            answers.put(id, server.instances().reschedule(id, null, newTime, null));
                        }
                    });
                    movers.add(mover);
                    mover.start();
                }
                go.countDown();
                move(clock, ticker, OLD_DELAY); // everything falls due while the movers run
                for (Thread mover : movers) {
                    mover.join();
                }
                move(clock, ticker, MOVE_BY);
                Await.until("round " + round + " delivered", WAIT, () -> batch.stream()
                        .allMatch(i -> status(server, i.id()) == InstanceStatus.SUCCEEDED));
            }
        }
        assertEquals(1000, answers.size(), "every reschedule answered");
        assertEachDeliveredOnceWhereTheAnswerSays(answers, oldTimes);
    }

    /**
     * Real time, a few hundred races: a round of 100 instances due 2 ms apart from 300 ms out (one transaction) is
     * moved a second later by two threads that start when the round's first instance is delivered, while the rest
     * fire. No thread waits on a clock: the firing itself starts the race.
     */
    @Test
    void reschedule_racingTheFireInRealTime_firesOnceAtTheTimeTheAnswerSays() throws Exception {
        Map<Long, RescheduleOutcome> answers = new ConcurrentHashMap<>();
        Map<Long, Instant> oldTimes = new ConcurrentHashMap<>();
        try (TickwheelServer server = server("real").build().start()) {
            Job job = server.jobs().create(JobSpec.of("moved", ScheduleSpec.api(), Target.handler("record")));
            for (int round = 0; round < 3; round++) {
                CountDownLatch fired = new CountDownLatch(1);
                firstDelivery.set(fired);
                Instant start = Instant.now().plusMillis(300);
                List<RunSpec> runs = IntStream.range(0, 100) // due 2 ms apart: they fire while the movers run
                        .mapToObj(i -> new RunSpec(null, null, start.plusMillis(2L * i), null)).toList();
                List<Instance> batch = new ArrayList<>(server.jobs().runAll(job.id(), runs).stream()
                        .map(RunWrite::instance).toList());
                batch.forEach(instance -> oldTimes.put(instance.id(), instance.expectedTriggerTime()));
                Collections.shuffle(batch);
                List<Thread> movers = new ArrayList<>();
                for (int t = 0; t < 2; t++) {
                    int first = t;
                    Thread mover = new Thread(() -> {
                        awaitQuietly(fired); // the round has started to fire: race the rest of it
                        for (int i = first; i < batch.size(); i += 2) {
                            long id = batch.get(i).id();
                            answers.put(id, server.instances().reschedule(id, 1_000L, null, null));
                        }
                    });
                    movers.add(mover);
                    mover.start();
                }
                for (Thread mover : movers) {
                    mover.join();
                }
                Await.until("round " + round + " delivered", WAIT, () -> batch.stream()
                        .allMatch(i -> status(server, i.id()) == InstanceStatus.SUCCEEDED));
            }
        }
        assertEachDeliveredOnceWhereTheAnswerSays(answers, oldTimes);
    }

    private void assertEachDeliveredOnceWhereTheAnswerSays(Map<Long, RescheduleOutcome> answers,
                                                           Map<Long, Instant> oldTimes) {
        for (Map.Entry<Long, RescheduleOutcome> answer : answers.entrySet()) {
            long id = answer.getKey();
            List<Instant> times = delivered.getOrDefault(id, List.of());
            assertEquals(1, times.size(), "instance " + id + " delivered once, answer " + answer.getValue());
            Instant expected = switch (answer.getValue().outcome()) {
                case RESCHEDULED -> answer.getValue().instance().expectedTriggerTime();
                case ALREADY_DISPATCHED, ALREADY_FINISHED -> oldTimes.get(id);
                case UNKNOWN -> throw new AssertionError("instance " + id + " unknown to the store");
            };
            assertEquals(expected, times.get(0), "instance " + id + " ran at the time its answer ("
                    + answer.getValue().outcome() + ") says");
        }
    }

    private static InstanceStatus status(TickwheelServer server, long id) {
        return server.instances().history(id).map(InstanceHistory::instance).map(Instance::status).orElse(null);
    }

    /** Wall clock first: when the wheel fires at the new tick, the engine's clock already reads the new time. */
    private static void move(SettableClock clock, ManualClock ticker, Duration step) {
        clock.advance(step);
        ticker.advance(step);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
