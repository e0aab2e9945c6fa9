package dev.tickwheel.server.dispatch;

import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.store.InstanceStore;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records successful dispatches in batches: target threads {@link #succeeded} an instance; one thread
 * ({@code tickwheel-outcome-1}) writes whatever has queued up, at most {@code maxBatch}, with one
 * {@link InstanceStore#markAllSucceeded} statement ({@code DISPATCHING → SUCCEEDED WHERE id = ANY(?) AND
 * status = 'DISPATCHING'}), then tells the listener and the completion listener and releases each instance's
 * in-flight permit.
 *
 * <p>Why it is safe: the write is the same compare-and-set as {@link InstanceStore#markSucceeded}, per row. Until it
 * commits, the instance is DISPATCHING, as it would be during a single write; a crash in between is settled by
 * start-up recovery exactly like a crash during the target call (the documented at-least-once window), and the window
 * is bounded by the in-flight permits.
 *
 * <p>Thread-safe: {@link #succeeded} from any thread; the queue is drained by the outcome thread only.
 *
 * <p>Caveats: failures are not batched (they are rare and need a per-instance retry decision); the dispatcher writes
 * them itself. If the write fails, the batch stays DISPATCHING and is logged; recovery settles it on the next start.
 */
public final class OutcomeRecorder implements AutoCloseable {

    public static final int DEFAULT_MAX_BATCH = 1_000;

    private static final Logger log = LoggerFactory.getLogger(OutcomeRecorder.class);
    private static final long POLL_MS = 50;

    /** A success waiting to be written. */
    private record Success(Job job, Instance instance) {
    }

    private final InstanceStore instances;
    private final Clock clock;
    private final int maxBatch;
    private final Semaphore inFlight;
    private final DispatchListener listener;
    private final InstanceDispatcher.CompletionListener completions;
    private final LinkedBlockingQueue<Success> pending = new LinkedBlockingQueue<>();
    private final Thread thread;
    // Written by close(), read by the outcome thread each poll.
    private volatile boolean running = true;

    public OutcomeRecorder(InstanceStore instances, Clock clock, int maxBatch, Semaphore inFlight,
                           DispatchListener listener, InstanceDispatcher.CompletionListener completions) {
        if (maxBatch < 1) {
            throw new IllegalArgumentException("maxBatch must be positive: " + maxBatch);
        }
        this.instances = Objects.requireNonNull(instances, "instances");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.maxBatch = maxBatch;
        this.inFlight = Objects.requireNonNull(inFlight, "inFlight");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.completions = Objects.requireNonNull(completions, "completions");
        this.thread = new Thread(this::run, "tickwheel-outcome-1");
        thread.setDaemon(true);
        thread.start();
    }

    /** Queues the success of a claimed instance. Never blocks. */
    public void succeeded(Job job, Instance instance) {
        pending.add(new Success(job, instance));
    }

    private void run() {
        List<Success> batch = new ArrayList<>(maxBatch);
        while (true) {
            try {
                Success first = pending.poll(POLL_MS, TimeUnit.MILLISECONDS);
                if (first == null) {
                    if (!running) {
                        return; // closed and drained
                    }
                    continue;
                }
                batch.add(first);
                pending.drainTo(batch, maxBatch - 1);
                record(batch);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException | Error e) {
                log.error("outcome loop failed; it keeps running", e);
            } finally {
                batch.clear();
            }
        }
    }

    private void record(List<Success> batch) {
        List<Long> ids = new ArrayList<>(batch.size());
        batch.forEach(s -> ids.add(s.instance().id()));
        Set<Long> moved;
        try {
            moved = instances.markAllSucceeded(ids);
        } catch (RuntimeException e) {
            log.error("recording {} successes failed; they stay DISPATCHING until recovery settles them",
                    batch.size(), e);
            inFlight.release(batch.size());
            return;
        }
        Instant now = clock.instant();
        for (Success s : batch) {
            try {
                if (moved.contains(s.instance().id())) {
                    listener.succeeded(s.job().target().type());
                    log.debug("instance {} of job {} succeeded (attempt {})", s.instance().id(), s.job().id(),
                            s.instance().attempt());
                    completions.completed(s.job(), s.instance(), now);
                } else {
                    log.warn("instance {} was no longer DISPATCHING when its success was recorded",
                            s.instance().id());
                }
            } catch (RuntimeException e) {
                log.error("completion of instance {} failed", s.instance().id(), e);
            } finally {
                inFlight.release();
            }
        }
    }

    /** Writes every queued success, then stops. Idempotent. */
    @Override
    public void close() {
        running = false;
        try {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
