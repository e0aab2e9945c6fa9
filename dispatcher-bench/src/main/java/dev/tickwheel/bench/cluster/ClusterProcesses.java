package dev.tickwheel.bench.cluster;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Tickwheel servers that form one cluster on one PostgreSQL schema, each a child JVM ({@link MemberProcess}) started
 * with the same flags: start them, kill ({@code SIGKILL}) or stop ({@code SIGTERM}) one, restart it in its slot, and
 * read {@code GET /api/cluster} to learn who holds which shards. {@link #close()} kills whatever still runs, so a
 * failed benchmark leaves no server behind writing to a schema that is being dropped.
 *
 * <p>Thread-safe: the member list is copy-on-write; process control is meant for the benchmark thread, API calls
 * through {@link Member#call} for any thread.
 */
final class ClusterProcesses implements AutoCloseable {

    /** How long a server may take to print its listening line: a JVM start on a busy 2-core machine. */
    static final Duration START_BOUND = Duration.ofSeconds(90);
    /** How long a graceful stop may take (the server lets calls end for up to its stop timeout). */
    static final Duration STOP_BOUND = Duration.ofSeconds(60);
    private static final Duration FENCE_BOUND = Duration.ofSeconds(30);

    private final List<String> jvmFlags;
    private final List<String> serverArgs;
    private final Path logDir;
    private final List<Member> members = new CopyOnWriteArrayList<>();

    /**
     * @param jvmFlags   every member JVM's flags
     * @param jdbcUrl    the PostgreSQL schema every member shares
     * @param serverArgs further server flags, the same for every member (e.g. {@code --lease-ttl-ms 5000})
     * @param logDir     where each process's output goes ({@code member-<slot>-<process>.log})
     */
    ClusterProcesses(List<String> jvmFlags, String jdbcUrl, List<String> serverArgs, Path logDir) {
        this.jvmFlags = List.copyOf(jvmFlags);
        List<String> args = new ArrayList<>(List.of("--port", "0", "--db-url", jdbcUrl));
        args.addAll(serverArgs);
        this.serverArgs = List.copyOf(args);
        this.logDir = logDir;
    }

    /** Starts {@code count} members at once (their JVMs start in parallel) and waits until each has joined. */
    List<Member> start(int count) throws InterruptedException {
        List<Member> started = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Member member = new Member("member-" + (members.size() + 1));
            members.add(member); // before waiting: close() must find it even if it never comes up
            launch(member);
            started.add(member);
        }
        for (Member member : started) {
            awaitJoined(member);
        }
        return started;
    }

    /** Starts a new process, with the same flags, in the slot of a member that was killed or stopped. */
    void restart(Member member) throws InterruptedException {
        if (member.state() != Member.State.KILLED && member.state() != Member.State.STOPPED) {
            throw new IllegalStateException("restart needs a killed or stopped member: " + member);
        }
        launch(member);
        awaitJoined(member);
    }

    private void launch(Member member) {
        Path log = logDir.resolve(member.name() + "-" + (member.processes() + 1) + ".log");
        member.starting(MemberProcess.start(jvmFlags, serverArgs, log));
    }

    /**
     * Waits for the listening line, then for {@code GET /api/cluster} to answer with the member's node id (a member
     * that listens while its store is briefly unavailable answers 503 first).
     */
    private static void awaitJoined(Member member) throws InterruptedException {
        long deadlineNanos = System.nanoTime() + START_BOUND.toNanos();
        MemberApi api = new MemberApi(member.process().awaitBaseUrl(START_BOUND));
        while (true) {
            try {
                ClusterSnapshot view = api.cluster();
                if (view.answeringNode() < 0) {
                    throw new IllegalStateException(member.name() + " joined with node id " + view.answeringNode());
                }
                member.running(api, view.answeringNode());
                return;
            } catch (IllegalStateException | java.io.UncheckedIOException notYet) {
                if (System.nanoTime() - deadlineNanos > 0 || !member.process().isAlive()) {
                    throw new IllegalStateException(member.name() + " did not answer GET /api/cluster within "
                            + START_BOUND + ": " + notYet.getMessage() + "; last lines:\n" + member.process().tail(),
                            notYet);
                }
                Thread.sleep(200);
            }
        }
    }

    /** {@code SIGKILL}, after taking the member out of the rotation; returns the wall-clock time of the signal. */
    long kill(Member member) throws InterruptedException {
        member.fenceOff(Member.State.KILLED, FENCE_BOUND);
        long killedAtMs = System.currentTimeMillis();
        member.process().kill();
        return killedAtMs;
    }

    /**
     * A graceful stop as it happened.
     *
     * @param signalledAtMs when SIGTERM was sent (wall clock)
     * @param tookMs        from the signal to the end of the process
     * @param exitCode      the process's exit code
     */
    record Stop(long signalledAtMs, long tookMs, int exitCode) {
    }

    /**
     * A graceful stop under way.
     *
     * @param signalledAtMs when SIGTERM was sent (wall clock)
     * @param stop          completes when the process has ended (its {@code tookMs} timed to that moment)
     */
    record PendingStop(long signalledAtMs, CompletableFuture<Stop> stop) {
        /**
         * Waits, at most {@link #STOP_BOUND}, for the stop.
         *
         * @throws IllegalStateException if it takes longer
         */
        Stop await() throws InterruptedException {
            try {
                return stop.get(STOP_BOUND.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                throw new IllegalStateException("a member still ran " + STOP_BOUND + " after SIGTERM", e);
            } catch (ExecutionException e) {
                throw new IllegalStateException("waiting for a member's stop failed: " + e.getCause(), e.getCause());
            }
        }
    }

    /**
     * {@code SIGTERM}, after taking the member out of the rotation, without waiting for the end: the caller can watch
     * the cluster while the member stops.
     */
    PendingStop terminateAsync(Member member) throws InterruptedException {
        member.fenceOff(Member.State.STOPPED, FENCE_BOUND);
        long signalledAtMs = System.currentTimeMillis();
        long startNanos = System.nanoTime();
        CompletableFuture<Stop> stop = member.process().terminateAsync().thenApply(exitCode -> new Stop(signalledAtMs,
                (System.nanoTime() - startNanos) / 1_000_000, exitCode));
        return new PendingStop(signalledAtMs, stop);
    }

    /** Every member slot, in the order they were started. */
    List<Member> members() {
        return List.copyOf(members);
    }

    List<Member> running() {
        return members.stream().filter(Member::isRunning).toList();
    }

    /** {@code GET /api/cluster} from the first running member that answers; empty if none does. */
    Optional<ClusterSnapshot> snapshot() {
        for (Member member : running()) {
            try {
                Optional<ClusterSnapshot> view = member.call(MemberApi::cluster);
                if (view.isPresent()) {
                    return view;
                }
            } catch (RuntimeException e) {
                // that member is busy or going; ask the next
            }
        }
        return Optional.empty();
    }

    /** Like {@link #snapshot()}, but fails naming the members if none answers. */
    ClusterSnapshot requireSnapshot() {
        return snapshot().orElseThrow(() -> new IllegalStateException("no running member answered GET /api/cluster: "
                + members));
    }

    /**
     * Waits until the shards are spread over the running members ({@link ClusterSnapshot#spreadOver}) and no shard
     * has changed hands for {@code stableFor} (the joiner's hand-overs have ended).
     *
     * @return the snapshot that showed it
     * @throws IllegalStateException with the last snapshot if that does not happen within {@code bound}
     */
    ClusterSnapshot awaitSpread(Duration bound, Duration stableFor) throws InterruptedException {
        long deadlineNanos = System.nanoTime() + bound.toNanos();
        ClusterSnapshot last = null;
        ClusterSnapshot stableSince = null;
        while (System.nanoTime() - deadlineNanos < 0) {
            Set<Integer> runningIds = new TreeSet<>();
            running().forEach(m -> runningIds.add(m.nodeId()));
            last = snapshot().orElse(null);
            if (last != null && last.spreadOver(runningIds)) {
                if (stableSince == null || !stableSince.holders().equals(last.holders())) {
                    stableSince = last;
                } else if (last.readAtMs() - stableSince.readAtMs() >= stableFor.toMillis()) {
                    return last;
                }
            } else {
                stableSince = null;
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("shards not spread over " + running() + " within " + bound + "; last seen: "
                + (last == null ? "nothing" : last.describe()));
    }

    /** Fails, naming it and showing its last lines, if a member this benchmark did not kill or stop has died. */
    void requireNoneDied() {
        for (Member member : members) {
            MemberProcess process = member.process();
            if (member.isRunning() && process != null && !process.isAlive()) {
                throw new IllegalStateException(member + " died by itself (log " + process.log() + "); last lines:\n"
                        + process.tail());
            }
        }
    }

    /** Stops every running member gracefully, all at once; returns how long the slowest took (ms). */
    long terminateAll() throws InterruptedException {
        long startNanos = System.nanoTime();
        List<Member> stopping = running();
        for (Member member : stopping) {
            member.fenceOff(Member.State.STOPPED, FENCE_BOUND);
            member.process().terminateAsync(); // all at once; awaited below
        }
        for (Member member : stopping) {
            member.process().awaitExit(STOP_BOUND);
        }
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    /** Kills every process still running. Idempotent. */
    @Override
    public void close() throws InterruptedException {
        for (Member member : members) {
            MemberProcess process = member.process();
            if (process != null && process.isAlive()) {
                process.kill();
            }
        }
    }
}
