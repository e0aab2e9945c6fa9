package dev.tickwheel.bench.ceiling;

import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.store.JobAdvance;
import dev.tickwheel.server.store.jdbc.InstancePathStatements;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;

/**
 * The bare loops of a ceiling run: the engine's statements ({@link InstancePathStatements}) on connections borrowed
 * from the engine's pool, one borrow per statement or page as the engine's stores do, with no planning, wheel,
 * slots or handler around them.
 *
 * <ul>
 *   <li>{@link #create}: one transaction per loader page (job advances as one JDBC batch, then the inserts).</li>
 *   <li>{@link #claim}: one claim statement per {@code claimBatch} ids, ascending, in auto-commit mode (H2: one
 *       transaction of single-row claims and the read of the won rows).</li>
 *   <li>{@link #settle}: one success statement per {@code settleBatch} ids, likewise.</li>
 *   <li>{@link #pipelined}: the stages at once, each on its own thread and connections, handing ids on through
 *       queues the way the engine's loader, claim batcher and outcome recorder do: a stage takes whatever has queued
 *       up (at most its batch), never waiting to fill a batch.</li>
 * </ul>
 * Every statement must move every row it is given (fresh rows, no competitor): a shortfall fails the run.
 *
 * <p>Thread-safe: each loop uses its own connections; {@link #pipelined} confines each stage to its thread.
 */
final class CeilingStages {

    /** An instance as the claim names it: its id and the due time its timer was armed for. */
    record Due(long id, long armedForMs) {
    }

    private static final Due END = new Due(-1, -1);

    private final DataSource dataSource;
    private final InstancePathStatements statements;
    private final CeilingSettings settings;

    CeilingStages(DataSource dataSource, InstancePathStatements statements, CeilingSettings settings) {
        this.dataSource = dataSource;
        this.statements = statements;
        this.settings = settings;
    }

    /** Writes every page, one transaction each; returns the instances created, in page order. */
    List<Due> create(List<List<JobAdvance>> pages) {
        List<Due> created = new ArrayList<>();
        for (List<JobAdvance> page : pages) {
            created.addAll(createPage(page));
        }
        return created;
    }

    private List<Due> createPage(List<JobAdvance> page) {
        int expected = page.stream().mapToInt(a -> a.instances().size()).sum();
        int created = inTransaction(true, c -> statements.createPage(c, page, System.currentTimeMillis()));
        check("create", expected, created);
        List<Due> due = new ArrayList<>(expected);
        for (JobAdvance advance : page) {
            for (NewInstance instance : advance.instances()) {
                due.add(new Due(instance.id(), instance.expectedTriggerTime().toEpochMilli()));
            }
        }
        return due;
    }

    /** Claims every instance, {@code claimBatch} a statement. */
    void claim(List<Due> instances) {
        for (int from = 0; from < instances.size(); from += settings.claimBatch()) {
            claimBatch(instances.subList(from, Math.min(instances.size(), from + settings.claimBatch())));
        }
    }

    private void claimBatch(List<Due> batch) {
        List<Due> sorted = new ArrayList<>(batch);
        sorted.sort(Comparator.comparingLong(Due::id)); // as the engine: ascending ids
        Long[] ids = new Long[sorted.size()];
        Long[] armedFor = new Long[sorted.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = sorted.get(i).id();
            armedFor[i] = sorted.get(i).armedForMs();
        }
        int claimed = inTransaction(statements.setsNeedTransaction(),
                c -> statements.claim(c, ids, armedFor, System.currentTimeMillis()));
        check("claim", ids.length, claimed);
    }

    /** Records every (claimed) instance SUCCEEDED, {@code settleBatch} a statement. */
    void settle(List<Due> instances) {
        for (int from = 0; from < instances.size(); from += settings.settleBatch()) {
            settleBatch(instances.subList(from, Math.min(instances.size(), from + settings.settleBatch())));
        }
    }

    private void settleBatch(List<Due> batch) {
        Long[] ids = batch.stream().map(Due::id).sorted().toArray(Long[]::new);
        int settled = inTransaction(statements.setsNeedTransaction(),
                c -> statements.succeed(c, ids, System.currentTimeMillis()));
        check("settle", ids.length, settled);
    }

    /**
     * The stages at once: a creator thread writing {@code pages} (or, when {@code pages} is empty, {@code created}
     * already written, queued at once), {@code claimThreads} claim threads, one success thread.
     *
     * @return the elapsed time, from the first page (or the first claim) to the last success
     */
    Duration pipelined(List<List<JobAdvance>> pages, List<Due> created, int claimThreads, Duration timeout) {
        int total = pages.isEmpty() ? created.size() : pages.stream().mapToInt(List::size).sum();
        BlockingQueue<Due> toClaim = new LinkedBlockingQueue<>();
        BlockingQueue<Due> toSettle = new LinkedBlockingQueue<>();
        ExecutorService threads = Executors.newFixedThreadPool(claimThreads + 2);
        CompletableFuture<Void> failed = new CompletableFuture<>();
        List<CompletableFuture<Void>> stages = new ArrayList<>();
        long startNanos = System.nanoTime();
        try {
            stages.add(stage(threads, failed, () -> {
                if (pages.isEmpty()) {
                    toClaim.addAll(created);
                } else {
                    for (List<JobAdvance> page : pages) {
                        toClaim.addAll(createPage(page));
                    }
                }
                for (int i = 0; i < claimThreads; i++) {
                    toClaim.add(END);
                }
            }));
            for (int i = 0; i < claimThreads; i++) {
                stages.add(stage(threads, failed, () -> {
                    List<Due> batch = new ArrayList<>(settings.claimBatch());
                    while (true) {
                        boolean end = take(toClaim, batch, settings.claimBatch());
                        if (!batch.isEmpty()) {
                            claimBatch(batch);
                            toSettle.addAll(batch);
                        }
                        if (end) {
                            return;
                        }
                    }
                }));
            }
            stages.add(stage(threads, failed, () -> {
                List<Due> batch = new ArrayList<>(settings.settleBatch());
                for (int settled = 0; settled < total; settled += batch.size()) {
                    take(toSettle, batch, settings.settleBatch());
                    settleBatch(batch);
                }
            }));
            CompletableFuture.anyOf(CompletableFuture.allOf(stages.toArray(CompletableFuture[]::new)), failed)
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return Duration.ofNanos(System.nanoTime() - startNanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("a pipelined stage failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("the pipelined run did not end within " + timeout, e);
        } finally {
            threads.shutdownNow();
        }
    }

    /**
     * Blocks for one item, then takes whatever else has queued, up to {@code max} in all, into {@code batch}
     * (cleared first), as the engine's batchers do. Returns true if it took an {@link #END} (never left in the
     * batch; one taken beyond the first goes back, for another thread).
     */
    private static boolean take(BlockingQueue<Due> queue, List<Due> batch, int max) throws InterruptedException {
        batch.clear();
        batch.add(queue.take());
        queue.drainTo(batch, max - 1);
        int ends = 0;
        while (batch.remove(END)) {
            ends++;
        }
        for (int i = 1; i < ends; i++) {
            queue.add(END); // another claim thread's: it must see its own
        }
        return ends > 0;
    }

    @FunctionalInterface
    private interface StageBody {
        void run() throws Exception;
    }

    private static CompletableFuture<Void> stage(ExecutorService threads, CompletableFuture<Void> failed,
                                                 StageBody body) {
        return CompletableFuture.runAsync(() -> {
            try {
                body.run();
            } catch (Throwable t) {
                failed.completeExceptionally(t);
            }
        }, threads);
    }

    @FunctionalInterface
    private interface Work {
        int run(Connection connection) throws SQLException;
    }

    /** Borrows a connection for one unit of work: a transaction if {@code transactional}, else auto-commit. */
    private int inTransaction(boolean transactional, Work work) {
        try (Connection connection = dataSource.getConnection()) {
            if (!transactional) {
                return work.run(connection);
            }
            connection.setAutoCommit(false);
            try {
                int result = work.run(connection);
                connection.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("a statement failed (SQLState " + e.getSQLState() + "): "
                    + e.getMessage(), e);
        }
    }

    private static void check(String stage, int expected, int moved) {
        if (moved != expected) {
            throw new IllegalStateException(stage + " moved " + moved + " of " + expected + " rows");
        }
    }
}
