package dev.tickwheel.server.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.Mockito.mock;

import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.store.JobStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.Test;

/**
 * Loaders stamping the jobs they advance, writers changing and invalidating those jobs, and fires taking the stamped
 * copies, all at once: a fire never takes a copy older than a change whose invalidation had returned before the fire.
 *
 * <p>The store is an array of job references; a write is a compare-and-set on it, as the store's are on the version:
 * a change writes version + 1 and then invalidates (as {@code JobService} does after its transaction), a loader's
 * advance succeeds only if the job is still the one it read (the advance keeps the version) and stamps before it.
 *
 * <p>Why it holds ({@link JobCatalog}): a copy of version v was stamped at s, and its advance found v current at a > s.
 * A change to v + 1 was written after a, so its invalidation, which follows that write, came after s and moved the
 * epoch the copy was stamped with. A fire that starts after that invalidation returned sees the moved epoch.
 */
class JobCatalogStressTest {

    private static final int JOBS = 16;
    private static final int WRITERS = 4;
    private static final int LOADERS = 4;
    private static final int FIRES = 4;
    private static final int CHANGES_PER_WRITER = 20_000;

    @Test
    void stampedCopies_racingChangesAndInvalidations_neverServeAChangeAlreadyInvalidated() throws Exception {
        JobCatalog catalog = new JobCatalog(mock(JobStore.class), Duration.ofSeconds(10));
        AtomicReferenceArray<Job> store = new AtomicReferenceArray<>(JOBS);
        long firstId = 7_300_000_000_000_000L;
        for (int i = 0; i < JOBS; i++) {
            store.set(i, JobCatalogTest.job(firstId + i, 0));
        }
        // Per job: the highest version whose invalidation has returned.
        AtomicLongArray invalidated = new AtomicLongArray(JOBS);
        ConcurrentLinkedQueue<JobCatalog.Stamped> armed = new ConcurrentLinkedQueue<>();
        AtomicInteger writersLeft = new AtomicInteger(WRITERS);
        AtomicLong served = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        List<String> violations = new ArrayList<>();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
            threads.add(new Thread(() -> {
                await(go);
                ThreadLocalRandom random = ThreadLocalRandom.current();
                for (int n = 0; n < CHANGES_PER_WRITER; n++) {
                    int i = random.nextInt(JOBS);
                    Job read = store.get(i);
                    Job changed = JobCatalogTest.job(read.id(), read.version() + 1);
                    if (store.compareAndSet(i, read, changed)) { // the update's commit
                        catalog.invalidate(changed.id()); // after the commit, as AfterWrite runs it
                        invalidated.accumulateAndGet(i, changed.version(), Math::max);
                    }
                }
                writersLeft.decrementAndGet();
            }, "writer-" + w));
        }
        for (int l = 0; l < LOADERS; l++) {
            threads.add(new Thread(() -> {
                await(go);
                ThreadLocalRandom random = ThreadLocalRandom.current();
                while (writersLeft.get() > 0) {
                    int i = random.nextInt(JOBS);
                    Job read = store.get(i); // the loader's page read
                    JobCatalog.Stamped stamped = catalog.stamp(read); // before the advance
                    if (store.compareAndSet(i, read, read)) { // the advance: a compare-and-set on the version read
                        armed.add(stamped);
                    }
                }
            }, "loader-" + l));
        }
        for (int f = 0; f < FIRES; f++) {
            threads.add(new Thread(() -> {
                await(go);
                while (writersLeft.get() > 0 || !armed.isEmpty()) {
                    JobCatalog.Stamped stamped = armed.poll();
                    if (stamped == null) {
                        Thread.onSpinWait();
                        continue;
                    }
                    int i = (int) (stamped.job().id() - firstId);
                    long floor = invalidated.get(i); // invalidations returned before this fire starts
                    Optional<Job> job = catalog.ifCurrent(stamped);
                    if (job == null) {
                        refused.incrementAndGet();
                    } else if (job.get().version() < floor) {
                        synchronized (violations) {
                            violations.add("job " + stamped.job().id() + " served at version "
                                    + job.get().version() + " after version " + floor + " was invalidated");
                        }
                    } else {
                        served.incrementAndGet();
                    }
                }
            }, "fire-" + f));
        }
        threads.forEach(Thread::start);
        go.countDown();
        for (Thread thread : threads) {
            thread.join();
        }

        assertEquals(List.of(), violations.size() > 5 ? violations.subList(0, 5) : violations);
        assertTrue(served.get() > 0 && refused.get() > 0,
                "both outcomes exercised: served " + served + ", refused " + refused);
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
