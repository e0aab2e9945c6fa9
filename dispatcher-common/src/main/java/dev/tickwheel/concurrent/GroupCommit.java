package dev.tickwheel.concurrent;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Group commit: callers on many threads {@link #submit} one item each and get a future; a few writer threads each take
 * whatever has queued up (at most {@code maxBatch} items), write it with <em>one</em> call of {@code writer} (one
 * transaction), and complete every item's future with its own result. The futures complete only after the writer
 * returned, so a caller that sees its result knows it was committed.
 *
 * <pre>
 *   http-1 ─┐                        ┌─ writer-1: take 1, drain ≤ maxBatch − 1 ─► writer(batch) ─► complete each
 *   http-2 ─┼─► queue of (item, future)
 *   http-n ─┘                        └─ writer-2: the same, while writer-1's transaction commits
 * </pre>
 *
 * <p>Batching is natural, never a wait: an item alone is written at once; the items that arrive while a transaction
 * commits form the next one. With {@code w} writers and a transaction of {@code t} ms, one call waits at most about
 * {@code t} for its turn and {@code t} for its own write, and the throughput is up to {@code w × maxBatch / t} items
 * a millisecond instead of {@code w / t}: with 32 callers and a 2 ms commit, about 16 items share each transaction.
 * Two writers let one transaction gather while another commits.
 *
 * <p>Failure: if {@code writer} throws, every future of that batch completes exceptionally with that throwable (the
 * writer must be all-or-nothing: one transaction), and the writer thread goes on. If it returns a list of the wrong
 * size, every future of the batch fails with an {@link IllegalStateException}.
 *
 * <p>Thread-safe: {@link #submit} from any thread; {@code writer} runs on the writer threads, concurrently with itself
 * when there are several.
 *
 * <p>Giving up: a caller that stops waiting cancels its future ({@code future.cancel(false)}). An item whose future is
 * already complete when a writer takes it is dropped unwritten; one taken before may still commit, so a caller that
 * gave up cannot tell whether its item was written.
 *
 * <p>Caveats: the queue is unbounded; callers bound it by waiting on their futures (one item in flight per caller
 * thread). Items still queued at {@link #close} are failed with an {@link IllegalStateException}; an item being
 * written when the wait runs out may still commit after its future failed.
 *
 * @param <I> an item to write
 * @param <R> what its write returns
 */
public final class GroupCommit<I, R> implements AutoCloseable {

    private final int maxBatch;
    private final Function<List<I>, List<R>> writer;
    private final LinkedBlockingQueue<Pending<I, R>> queue = new LinkedBlockingQueue<>();
    private final List<Thread> threads = new ArrayList<>();
    /** Read by submit() without a lock; set once by close(). Items queued after it are failed by close's drain. */
    private volatile boolean closed;

    private record Pending<I, R>(I item, CompletableFuture<R> result) {
    }

    /** Queued by close() once per writer, behind every accepted item: a writer that takes one stops. */
    @SuppressWarnings("rawtypes")
    private static final Pending STOP = new Pending<>(null, null);

    /**
     * Starts the writer threads, named {@code tickwheel-<role>-<n>}.
     *
     * @param role     the threads' role
     * @param writers  writer threads, at least 1
     * @param maxBatch most items per write, at least 1
     * @param writer   writes a batch in one transaction and returns one result per item, in order
     */
    public GroupCommit(String role, int writers, int maxBatch, Function<List<I>, List<R>> writer) {
        if (writers < 1) {
            throw new IllegalArgumentException("writers must be at least 1: " + writers);
        }
        if (maxBatch < 1) {
            throw new IllegalArgumentException("maxBatch must be at least 1: " + maxBatch);
        }
        this.maxBatch = maxBatch;
        this.writer = Objects.requireNonNull(writer, "writer");
        NamedThreadFactory factory = new NamedThreadFactory(role, true);
        for (int i = 0; i < writers; i++) {
            Thread thread = factory.newThread(this::run);
            threads.add(thread);
            thread.start();
        }
    }

    /**
     * Queues an item for the next write. Never blocks. The future completes with the item's result once its batch is
     * committed, or exceptionally with what the write threw.
     */
    public CompletableFuture<R> submit(I item) {
        Objects.requireNonNull(item, "item");
        CompletableFuture<R> result = new CompletableFuture<>();
        if (closed) {
            result.completeExceptionally(new IllegalStateException("group commit is closed"));
            return result;
        }
        queue.add(new Pending<>(item, result));
        if (closed) {
            failQueued(); // close() may have drained before this add: nobody else would fail it
        }
        return result;
    }

    @SuppressWarnings("unchecked")
    private void run() {
        List<Pending<I, R>> taken = new ArrayList<>(maxBatch);
        boolean stop = false;
        while (!stop) {
            try {
                taken.add(queue.take()); // an idle writer blocks here: it costs nothing
            } catch (InterruptedException e) {
                return; // only close() interrupts, after its wait ran out
            }
            queue.drainTo(taken, maxBatch - 1);
            List<Pending<I, R>> batch = new ArrayList<>(taken.size());
            int stops = 0;
            for (Pending<I, R> pending : taken) {
                if (pending == STOP) {
                    stops++;
                } else if (!pending.result().isDone()) { // done: its caller gave up (cancelled); write nothing
                    batch.add(pending);
                }
            }
            stop = stops > 0;
            for (int i = 1; i < stops; i++) {
                queue.add(STOP); // drained another writer's marker: give it back, or that writer waits for ever
            }
            taken.clear();
            if (!batch.isEmpty()) {
                write(batch);
            }
        }
    }

    private void write(List<Pending<I, R>> batch) {
        List<I> items = new ArrayList<>(batch.size());
        batch.forEach(p -> items.add(p.item()));
        List<R> results;
        try {
            results = writer.apply(items);
        } catch (Throwable failure) { // Errors too: the writer thread must outlive any one batch
            batch.forEach(p -> p.result().completeExceptionally(failure));
            return;
        }
        if (results == null || results.size() != batch.size()) {
            IllegalStateException wrong = new IllegalStateException("the writer returned "
                    + (results == null ? "null" : results.size() + " results") + " for " + batch.size() + " items");
            batch.forEach(p -> p.result().completeExceptionally(wrong));
            return;
        }
        for (int i = 0; i < batch.size(); i++) {
            batch.get(i).result().complete(results.get(i));
        }
    }

    private void failQueued() {
        List<Pending<I, R>> left = new ArrayList<>();
        queue.drainTo(left);
        IllegalStateException stopped = new IllegalStateException("group commit is closed");
        for (Pending<I, R> pending : left) {
            if (pending != STOP) {
                pending.result().completeExceptionally(stopped);
            }
        }
    }

    /**
     * Stops accepting items, lets the writers write what is queued for up to {@code wait}, then interrupts them and
     * fails whatever is left. Idempotent.
     */
    @SuppressWarnings("unchecked")
    public void close(long wait, TimeUnit unit) {
        if (!closed) {
            closed = true;
            threads.forEach(t -> queue.add(STOP));
        }
        long deadline = System.nanoTime() + unit.toNanos(wait);
        for (Thread thread : threads) {
            try {
                thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        threads.forEach(Thread::interrupt);
        failQueued();
    }

    /** {@link #close(long, TimeUnit)} with a 10 s wait. */
    @Override
    public void close() {
        close(10, TimeUnit.SECONDS);
    }
}
