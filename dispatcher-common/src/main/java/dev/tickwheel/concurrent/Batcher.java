package dev.tickwheel.concurrent;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * One thread that hands whatever has queued up to a consumer in batches: producers {@link #add} items from any
 * thread; the batch thread blocks until there is one, takes it and everything queued behind it, at most
 * {@code maxBatch}, and calls {@code consumer} with that list.
 *
 * <p>Batching is natural, never a wait: one item alone is handed over at once; items that arrive while the consumer
 * runs form the next batch. So at low load a batch costs one consumer call of one item, and at high load each call
 * carries many. An idle batcher blocks in {@link LinkedBlockingQueue#take()}: it costs nothing.
 *
 * <p>A consumer that throws (anything, {@link Error}s included) has the throwable and its batch handed to
 * {@code onFailure}; the thread goes on with the next batch. The consumer decides for itself whether to retry. What
 * {@code onFailure} itself throws goes to the thread's uncaught-exception handler, and the thread goes on.
 *
 * <p>Every item {@link #add} accepts is handed over exactly once, in the order of acceptance, or returned by
 * {@link #close(long, TimeUnit)}; never both, never neither.
 *
 * <p>Thread-safe: {@link #add} from any thread; the consumer runs on the batch thread only.
 *
 * <p>Caveats: the queue is unbounded; producers bound it (the claim and outcome batchers take only instances that
 * hold a call slot; the job-read batcher's, fired instances whose job is not cached, hold none).
 *
 * @param <T> the item type
 */
public final class Batcher<T> implements AutoCloseable {

    private final int maxBatch;
    private final Consumer<List<T>> consumer;
    private final BiConsumer<List<T>, Throwable> onFailure;
    private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private final Thread thread;
    /**
     * Held by add() from its check of {@link #closed} to its enqueue, and by close() while it queues STOP and sets
     * closed: so every item add() accepts is queued ahead of STOP, and none lands behind it unseen.
     */
    private final Object acceptLock = new Object();
    /** Set under acceptLock by close(); volatile because queued() reads it without the lock. */
    private volatile boolean closed;
    /**
     * Set by close() when its wait runs out, before it interrupts the thread: the thread then stops after the batch in
     * hand even if the consumer cleared the interrupt, so it never hands over what close() returns.
     */
    private volatile boolean abandoned;
    /** Queued by close() behind every accepted item: the thread stops when it takes it. */
    private static final Object STOP = new Object();

    /**
     * Starts the batch thread.
     *
     * @param role      the thread's role; it is named {@code tickwheel-<role>-1}
     * @param maxBatch  most items per consumer call, at least 1
     * @param consumer  takes each batch; runs on the batch thread
     * @param onFailure told when the consumer throws, with the batch it was given
     */
    public Batcher(String role, int maxBatch, Consumer<List<T>> consumer, BiConsumer<List<T>, Throwable> onFailure) {
        if (maxBatch < 1) {
            throw new IllegalArgumentException("maxBatch must be at least 1: " + maxBatch);
        }
        this.maxBatch = maxBatch;
        this.consumer = Objects.requireNonNull(consumer, "consumer");
        this.onFailure = Objects.requireNonNull(onFailure, "onFailure");
        this.thread = new NamedThreadFactory(role, true).newThread(this::run);
        thread.start();
    }

    /**
     * Queues an item for the next batch. Never waits for the consumer (producers only contend briefly for the queue).
     * An item accepted here is either handed over or returned by {@link #close(long, TimeUnit)}.
     *
     * @throws IllegalStateException after {@link #close}
     */
    public void add(T item) {
        Objects.requireNonNull(item, "item");
        synchronized (acceptLock) {
            if (closed) {
                throw new IllegalStateException("batcher is closed");
            }
            queue.add(item);
        }
    }

    /** Items queued and not yet handed to the consumer. */
    public int queued() {
        return Math.max(0, queue.size() - (closed ? 1 : 0));
    }

    @SuppressWarnings("unchecked") // only T and STOP are ever queued
    private void run() {
        List<Object> taken = new ArrayList<>(maxBatch);
        List<T> batch = new ArrayList<>(maxBatch);
        boolean stop = false;
        while (!stop && !abandoned) {
            try {
                taken.add(queue.take());
                queue.drainTo(taken, maxBatch - 1);
            } catch (InterruptedException e) {
                return; // only close() interrupts, after its wait ran out: leave at once
            }
            for (Object item : taken) {
                if (item == STOP) {
                    stop = true; // STOP is queued last: whatever came before it still gets its batch
                } else {
                    batch.add((T) item);
                }
            }
            taken.clear();
            if (!batch.isEmpty()) {
                try {
                    consumer.accept(batch);
                } catch (Throwable failure) { // Errors too: the thread must outlive any one batch
                    reportFailure(batch, failure);
                }
                batch = new ArrayList<>(maxBatch); // the consumer may have kept the list
            }
        }
    }

    /**
     * Stops accepting items, lets the thread hand over everything already queued, and waits up to {@code wait} for
     * it; then interrupts it, and it stops after the batch in hand (even if the consumer clears the interrupt).
     * Returns the items that were never handed over and never will be (empty when the wait sufficed). Idempotent.
     */
    @SuppressWarnings("unchecked")
    public List<T> close(long wait, TimeUnit unit) {
        synchronized (acceptLock) {
            if (!closed) {
                queue.add(STOP); // before closed is set, so that queued() never sees closed without STOP
                closed = true;
            }
        }
        try {
            thread.join(Math.max(1, unit.toMillis(wait)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        boolean alive = thread.isAlive();
        if (alive) {
            abandoned = true;
            thread.interrupt();
        }
        // drainTo, not a copy then clear: each item is removed either by the thread (handed over) or here (returned).
        List<Object> rest = new ArrayList<>();
        queue.drainTo(rest);
        if (alive) {
            queue.add(STOP); // a thread already past its abandoned check, whose interrupt was cleared, still ends
        }
        List<T> left = new ArrayList<>(rest.size());
        for (Object item : rest) {
            if (item != STOP) {
                left.add((T) item);
            }
        }
        return left;
    }

    /**
     * Tells onFailure; if onFailure throws too, tells the thread's uncaught-exception handler instead of dying, since
     * dispatcher-common does not log and the thread must go on with the next batch.
     */
    private void reportFailure(List<T> batch, Throwable failure) {
        try {
            onFailure.accept(List.copyOf(batch), failure);
        } catch (Throwable alsoFailed) {
            try {
                if (alsoFailed != failure) {
                    alsoFailed.addSuppressed(failure);
                }
                Thread.currentThread().getUncaughtExceptionHandler().uncaughtException(thread, alsoFailed);
            } catch (Throwable handlerFailed) { // nothing is left to tell; the batch thread must live on
            }
        }
    }

    /** {@link #close(long, TimeUnit)} with a 30 s wait, dropping anything left. */
    @Override
    public void close() {
        close(30, TimeUnit.SECONDS);
    }
}
