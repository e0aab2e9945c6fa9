package dev.tickwheel.server.dispatch;

import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.store.InstanceStore;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims fired instances in batches: the wheel's dispatch threads {@link #submit} instance IDs; one thread
 * ({@code tickwheel-claim-1}) takes whatever has queued up, at most {@code maxBatch}, and claims it with one
 * {@link InstanceStore#claimBatch} statement that returns the claimed rows. Claimed instances go to
 * {@code onClaimed}; IDs the statement did not claim (cancelled, finished, claimed elsewhere) are dropped and
 * reported to {@code onLost}. {@code onClaimed} gets each claimed batch; it runs on the claim thread and must not
 * block for long.
 *
 * <p>Why exactly-once holds: batching changes how many rows one statement moves, not the condition. The claim is still
 * {@code status = 'WAITING'} per row under the row lock, so an instance cancelled first is never claimed, and of any
 * number of racing claims (threads, nodes, batched or not) exactly one gets it back.
 *
 * <p>Batching is natural, never a wait: when one ID is queued it is claimed at once; IDs that arrive during a claim
 * form the next batch. So lateness at low load is one statement, and at high load statements carry many rows.
 *
 * <p>In flight: a claim takes a permit of {@code inFlight} per instance; whoever finishes the instance releases it.
 * That bounds how many instances are claimed but not yet recorded: the ones a crash would leave DISPATCHING.
 *
 * <p>Thread-safe: {@link #submit} from any thread; the queue is drained by the claim thread only.
 *
 * <p>Caveats: IDs still queued at {@link #close()} are not claimed; they stay WAITING in the store and start-up
 * recovery re-arms them. If a claim statement fails, its IDs are handed to {@code onFailure} to be re-armed.
 */
public final class ClaimBatcher implements AutoCloseable {

    public static final int DEFAULT_MAX_BATCH = 500;

    private static final Logger log = LoggerFactory.getLogger(ClaimBatcher.class);
    private static final long POLL_MS = 50;

    private final InstanceStore instances;
    private final Clock clock;
    private final int maxBatch;
    private final Semaphore inFlight;
    private final BiConsumer<List<Instance>, Instant> onClaimed;
    private final Runnable onLost;
    private final Consumer<List<Long>> onFailure;
    private final LinkedBlockingQueue<Long> fired = new LinkedBlockingQueue<>();
    private final Thread thread;
    // Written by close(), read by the claim thread each poll.
    private volatile boolean running = true;

    public ClaimBatcher(InstanceStore instances, Clock clock, int maxBatch, Semaphore inFlight,
                        BiConsumer<List<Instance>, Instant> onClaimed, Runnable onLost, Consumer<List<Long>> onFailure) {
        if (maxBatch < 1 || maxBatch > 1_000) {
            throw new IllegalArgumentException("maxBatch must be in 1..1000: " + maxBatch);
        }
        this.instances = Objects.requireNonNull(instances, "instances");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.maxBatch = maxBatch;
        this.inFlight = Objects.requireNonNull(inFlight, "inFlight");
        this.onClaimed = Objects.requireNonNull(onClaimed, "onClaimed");
        this.onLost = Objects.requireNonNull(onLost, "onLost");
        this.onFailure = Objects.requireNonNull(onFailure, "onFailure");
        this.thread = new Thread(this::run, "tickwheel-claim-1");
        thread.setDaemon(true);
        thread.start();
    }

    /** Queues a fired instance for the next claim. Never blocks. */
    public void submit(long instanceId) {
        fired.add(instanceId);
    }

    private void run() {
        List<Long> batch = new ArrayList<>(maxBatch);
        while (running) {
            try {
                Long first = fired.poll(POLL_MS, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                inFlight.acquire();
                batch.add(first);
                while (batch.size() < maxBatch && !fired.isEmpty() && inFlight.tryAcquire()) {
                    Long next = fired.poll();
                    if (next == null) {
                        inFlight.release();
                        break;
                    }
                    batch.add(next);
                }
                claim(batch);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException | Error e) {
                log.error("claim loop failed; it keeps running", e);
            } finally {
                batch.clear();
            }
        }
    }

    private void claim(List<Long> batch) {
        Instant firedAt = clock.instant();
        List<Instance> claimed;
        try {
            claimed = instances.claimBatch(batch, firedAt);
        } catch (RuntimeException e) {
            inFlight.release(batch.size());
            log.error("claim of {} instances failed; re-arming them", batch.size(), e);
            onFailure.accept(List.copyOf(batch));
            return;
        }
        int lost = batch.size() - claimed.size();
        inFlight.release(lost);
        for (int i = 0; i < lost; i++) {
            onLost.run();
        }
        if (!claimed.isEmpty()) {
            onClaimed.accept(claimed, firedAt);
        }
    }

    /** Stops claiming; IDs still queued stay WAITING in the store. Waits for a claim in progress. Idempotent. */
    @Override
    public void close() {
        running = false;
        try {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        int dropped = fired.size();
        fired.clear();
        if (dropped > 0) {
            log.info("{} fired instances were not claimed before close; they stay WAITING", dropped);
        }
    }
}
