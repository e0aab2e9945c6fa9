package dev.tickwheel.server.dispatch;

import static com.google.common.util.concurrent.Uninterruptibles.awaitUninterruptibly;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.concurrent.NamedThreadFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link CallRunners} under many callers: every call runs exactly once, none is stranded in the queue when the
 * runners go quiet, and a queued call never waits behind a running one. Why the design is safe is in its javadoc.
 * Each test bounds its waits generously: a bound that expires means a call was stranded or held back, not a slow
 * machine.
 */
class CallRunnersStressTest {

    private static final int THREADS = 8;
    private static final long BOUND_S = 30;

    private final ThreadPoolExecutor pool = new ThreadPoolExecutor(THREADS, THREADS, 60, TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(), new NamedThreadFactory("runners-test", true));
    /** The runners' queue: calls handed over and not yet taken. */
    private final ConcurrentLinkedQueue<FutureTask<?>> queue = new ConcurrentLinkedQueue<>();
    private final CallRunners runners = new CallRunners(pool, queue);
    /** The dispatcher's admission: at most THREADS calls in flight, queued or running. */
    private final Semaphore admission = new Semaphore(THREADS);

    /** The latches blocking calls wait on: opened after each test, so that a failed one leaves no thread blocked. */
    private final List<CountDownLatch> releases = new ArrayList<>();

    @AfterEach
    void stop() throws InterruptedException {
        releases.forEach(CountDownLatch::countDown);
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(BOUND_S, TimeUnit.SECONDS));
    }

    /**
     * Rounds of bursts from four callers with a quiet moment between rounds, so that runners end and must be started
     * again: a call handed over just as the last runner ends is where a lost wake-up would strand it.
     */
    @Test
    void burstsFromFourCallers_withQuietBetween_everyCallRunsExactlyOnce() throws Exception {
        int rounds = 2_000;
        int callers = 4;
        int perCaller = 6;
        AtomicIntegerArray runs = new AtomicIntegerArray(rounds * callers * perCaller);
        for (int round = 0; round < rounds; round++) {
            CountDownLatch done = new CountDownLatch(callers * perCaller);
            int base = round * callers * perCaller;
            List<Thread> threads = new ArrayList<>();
            for (int c = 0; c < callers; c++) {
                int first = base + c * perCaller;
                threads.add(start(() -> {
                    for (int i = 0; i < perCaller; i++) {
                        int id = first + i;
                        admission.acquireUninterruptibly();
                        runners.execute(new FutureTask<Void>(() -> {
                            runs.incrementAndGet(id);
                            admission.release();
                            done.countDown();
                        }, null));
                    }
                }));
            }
            joinAll(threads, round);
            assertTrue(done.await(BOUND_S, TimeUnit.SECONDS), "round " + round + ": " + done.getCount()
                    + " calls never ran, " + queue.size() + " queued");
        }
        for (int id = 0; id < runs.length(); id++) {
            assertEquals(1, runs.get(id), "call " + id);
        }
        assertEquals(0, queue.size());
    }

    /**
     * Some calls block (up to all threads but one) while four callers hand over quick calls: every quick call must
     * run while the blocked ones still hold their threads. A runner that ran its blocking call without first starting
     * another for the queue would hold the quick calls back until the end, and the bound would expire.
     */
    @Test
    void blockedCalls_neverHoldBackQueuedOnes() throws Exception {
        for (int round = 0; round < 300; round++) {
            int blocked = 1 + ThreadLocalRandom.current().nextInt(THREADS - 1);
            CountDownLatch release = released(new CountDownLatch(1));
            CountDownLatch blockedStarted = new CountDownLatch(blocked);
            CountDownLatch blockedDone = new CountDownLatch(blocked);
            // Blocking calls interleaved with quick ones from the start, so that runners take both kinds.
            int callers = 4;
            int perCaller = 50;
            CountDownLatch quickDone = new CountDownLatch(callers * perCaller);
            int[] blockerAt = new int[blocked]; // caller 0 hands over blocking call b before its quick call blockerAt[b]
            for (int b = 0; b < blocked; b++) {
                blockerAt[b] = ThreadLocalRandom.current().nextInt(perCaller);
            }
            List<Thread> threads = new ArrayList<>();
            for (int c = 0; c < callers; c++) {
                boolean withBlockers = c == 0;
                threads.add(start(() -> {
                    for (int i = 0; i < perCaller; i++) {
                        for (int b = 0; withBlockers && b < blocked; b++) {
                            if (blockerAt[b] == i) {
                                admission.acquireUninterruptibly();
                                runners.execute(new FutureTask<Void>(() -> {
                                    blockedStarted.countDown();
                                    awaitUninterruptibly(release);
                                    admission.release();
                                    blockedDone.countDown();
                                }, null));
                            }
                        }
                        admission.acquireUninterruptibly();
                        runners.execute(new FutureTask<Void>(() -> {
                            admission.release();
                            quickDone.countDown();
                        }, null));
                    }
                }));
            }
            joinAll(threads, round);
            assertTrue(quickDone.await(BOUND_S, TimeUnit.SECONDS), "round " + round + " (" + blocked
                    + " blocked): " + quickDone.getCount() + " quick calls held back, " + queue.size() + " queued");
            assertTrue(blockedStarted.await(BOUND_S, TimeUnit.SECONDS), "round " + round + ": "
                    + blockedStarted.getCount() + " blocking calls never started");
            release.countDown();
            assertTrue(blockedDone.await(BOUND_S, TimeUnit.SECONDS));
        }
        assertEquals(0, queue.size());
    }

    /**
     * The lost wake-up, stepped through: a call handed over just after the last runner found the queue empty, while
     * that runner still counts as searching, so its caller starts no runner. The runner's second poll must take it.
     */
    @Test
    void callHandedOverAsTheLastRunnerFindsNothing_isTakenByItsSecondPoll() throws Exception {
        SteppedQueue steps = new SteppedQueue();
        CallRunners stepped = new CallRunners(pool, steps);
        CountDownLatch late = new CountDownLatch(1);
        steps.onFirstEmptyPoll = () -> stepped.execute(new FutureTask<Void>(late::countDown, null));

        stepped.execute(new FutureTask<Void>(() -> { }, null));

        assertTrue(late.await(BOUND_S, TimeUnit.SECONDS), "the late call was stranded: " + steps.size()
                + " queued");
        assertEquals(0, steps.size());
    }

    /**
     * A runner that takes a blocking call while another waits and nobody else searches, stepped through: the calls are
     * handed over while the only runner counts as searching, so their callers start none. The runner must start one
     * for the quick call before it runs the blocking one.
     */
    @Test
    void runnerTakingABlockingCallWithAnotherQueued_startsARunnerForIt() throws Exception {
        SteppedQueue steps = new SteppedQueue();
        CallRunners stepped = new CallRunners(pool, steps);
        CountDownLatch release = released(new CountDownLatch(1));
        CountDownLatch quick = new CountDownLatch(1);
        steps.beforeFirstPoll = () -> {
            stepped.execute(new FutureTask<Void>(() -> awaitUninterruptibly(release), null));
            stepped.execute(new FutureTask<Void>(quick::countDown, null));
        };

        stepped.execute(new FutureTask<Void>(() -> { }, null));

        assertTrue(quick.await(BOUND_S, TimeUnit.SECONDS), "the quick call waited behind the blocking one");
        release.countDown();
    }

    @Test
    void afterShutdown_aCallIsRefused_andNeverQueued() {
        pool.shutdown();

        FutureTask<Void> call = new FutureTask<>(() -> { }, null);
        assertThrows(RejectedExecutionException.class, () -> runners.execute(call));
        assertEquals(0, queue.size());
    }

    /** A call queue that runs a step of the test in the runner's thread at a chosen poll. */
    private static final class SteppedQueue extends ConcurrentLinkedQueue<FutureTask<?>> {
        private static final long serialVersionUID = 1L;
        volatile Runnable beforeFirstPoll;
        volatile Runnable onFirstEmptyPoll;
        private final AtomicBoolean polled = new AtomicBoolean();
        private final AtomicBoolean foundEmpty = new AtomicBoolean();

        @Override
        public FutureTask<?> poll() {
            if (beforeFirstPoll != null && polled.compareAndSet(false, true)) {
                beforeFirstPoll.run();
            }
            FutureTask<?> call = super.poll();
            if (call == null && onFirstEmptyPoll != null && foundEmpty.compareAndSet(false, true)) {
                onFirstEmptyPoll.run(); // a caller's hand-over, between this poll and what the runner does next
            }
            return call;
        }
    }

    private CountDownLatch released(CountDownLatch latch) {
        releases.add(latch);
        return latch;
    }

    private static Thread start(Runnable caller) {
        Thread thread = new Thread(caller, "caller");
        thread.setDaemon(true); // a caller stuck on admission (a call stranded: the test fails) must not hold the JVM
        thread.start();
        return thread;
    }

    /** Callers block on admission while calls are stranded or held back: that fails here, within the bound. */
    private void joinAll(List<Thread> callers, int round) throws InterruptedException {
        for (Thread t : callers) {
            t.join(TimeUnit.SECONDS.toMillis(BOUND_S));
            assertFalse(t.isAlive(), "round " + round + ": a caller is stuck on admission, calls in flight never end; "
                    + queue.size() + " queued");
        }
    }
}
