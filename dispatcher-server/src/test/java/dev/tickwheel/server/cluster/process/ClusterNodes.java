package dev.tickwheel.server.cluster.process;

import dev.tickwheel.server.Await;
import dev.tickwheel.server.api.ApiClient;
import dev.tickwheel.server.api.ServerProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Server processes that form one cluster on one PostgreSQL schema, all started with the same flags: start, kill
 * ({@code SIGKILL}), pause ({@code SIGSTOP}) and resume ({@code SIGCONT}), terminate ({@code SIGTERM}, a graceful
 * stop) and restart them, and read {@code GET /api/cluster} to learn who holds which shards.
 *
 * <p>Register it with {@code @RegisterExtension}: right after the test method, before any {@code @AfterEach}, it
 * prints the output of every process it started if the test failed, then continues paused processes and kills them
 * all, so a failing test never leaves a server behind (nor one still writing to a schema that is being dropped).
 * {@link #close()} does the same and is idempotent.
 *
 * <p>Thread-safe: the members list is copy-on-write; process control is meant for the test thread, API calls through
 * {@link MemberProcess#call} for any thread.
 *
 * <p>Caveats: SIGSTOP and SIGCONT are sent with the {@code kill} command (the JDK cannot send them), so this needs a
 * Unix; the stopped state is confirmed from {@code /proc} where there is one.
 */
final class ClusterNodes implements AutoCloseable, AfterTestExecutionCallback {

    /** How long a process may take to print its listening line: a JVM start on a busy 2-core machine. */
    static final Duration START_BOUND = Duration.ofSeconds(60);
    /** How long a graceful stop may take before the test calls it hung (the server lets calls end for up to 10 s). */
    static final Duration STOP_BOUND = Duration.ofSeconds(30);
    /** How long the API calls in flight to a member may take to end before it is signalled. */
    private static final Duration FENCE_BOUND = Duration.ofSeconds(30);
    private static final Duration SIGNAL_BOUND = Duration.ofSeconds(10);
    private static final int OUTPUT_LINES_ON_FAILURE = 250;

    private final List<String> args;
    private final List<MemberProcess> members = new CopyOnWriteArrayList<>();
    private final AtomicBoolean closed = new AtomicBoolean(); // close() may come from the extension and from a test

    /**
     * @param jdbcUrl the PostgreSQL schema every member shares
     * @param flags   further server flags, the same for every member (e.g. {@code --lease-ttl-ms 5000})
     */
    ClusterNodes(String jdbcUrl, String... flags) {
        List<String> all = new ArrayList<>(List.of("--port", "0", "--db-url", jdbcUrl));
        all.addAll(List.of(flags));
        this.args = List.copyOf(all);
    }

    /** Starts one member and waits until it listens. */
    MemberProcess start() {
        return start(1).get(0);
    }

    /** Starts {@code count} members at once (their JVMs start in parallel) and waits until each listens. */
    List<MemberProcess> start(int count) {
        List<MemberProcess> started = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            MemberProcess member = new MemberProcess("member-" + (members.size() + 1), launch());
            members.add(member); // before waiting: close() must find it even if it never comes up
            started.add(member);
        }
        for (MemberProcess member : started) {
            awaitRunning(member);
        }
        return started;
    }

    /** Starts a new process, with the same flags, in the slot of a member that was killed or stopped. */
    void restart(MemberProcess member) {
        if (member.state() != MemberProcess.State.KILLED && member.state() != MemberProcess.State.STOPPED) {
            throw new IllegalStateException("restart needs a killed or stopped member: " + member);
        }
        member.replaceProcess(launch());
        awaitRunning(member);
    }

    private ServerProcess launch() {
        try {
            return ServerProcess.start(args.toArray(String[]::new));
        } catch (IOException e) {
            throw new UncheckedIOException("could not start a server process", e);
        }
    }

    private static void awaitRunning(MemberProcess member) {
        ApiClient api = new ApiClient(member.process().awaitBaseUrl(START_BOUND));
        ApiClient.Reply cluster = api.get("/api/cluster");
        if (cluster.status() != 200 || !cluster.json().path("nodeId").canConvertToInt()) {
            throw new AssertionError(member.name() + ": GET /api/cluster answered " + cluster);
        }
        int nodeId = cluster.json().get("nodeId").asInt();
        if (nodeId < 0) {
            throw new AssertionError(member.name() + ": joined with node id " + nodeId + ": " + cluster);
        }
        member.running(api, nodeId);
    }

    /** {@code SIGKILL}, after taking the member out of the rotation; returns the wall-clock time of the signal. */
    long kill(MemberProcess member) throws InterruptedException {
        member.fenceOff(MemberProcess.State.KILLED, FENCE_BOUND);
        long killedAtMillis = System.currentTimeMillis();
        member.process().kill(); // returns once the process is gone
        return killedAtMillis;
    }

    /** {@code SIGSTOP}, after taking the member out of the rotation; returns the wall-clock time of the signal. */
    long pause(MemberProcess member) {
        member.fenceOff(MemberProcess.State.PAUSED, FENCE_BOUND);
        long pausedAtMillis = System.currentTimeMillis();
        signal(member, "STOP");
        Path stat = Path.of("/proc", Long.toString(member.process().pid()), "stat");
        if (Files.exists(stat)) {
            Await.until(() -> member + " to show as stopped in " + stat, SIGNAL_BOUND, () -> stopped(stat));
        }
        return pausedAtMillis;
    }

    /** {@code SIGCONT} to a paused member; it takes API calls again. */
    void resume(MemberProcess member) {
        signal(member, "CONT");
        member.resumed();
    }

    /**
     * A graceful stop as it happened.
     *
     * @param signalledAtMillis when SIGTERM was sent (wall clock)
     * @param took              from the signal to the end of the process
     * @param exitCode          the process's exit code
     */
    record Stop(long signalledAtMillis, Duration took, int exitCode) {
        long endedAtMillis() {
            return signalledAtMillis + took.toMillis();
        }
    }

    /** {@code SIGTERM}, after taking the member out of the rotation, and waits (bounded) for the process to end. */
    Stop terminate(MemberProcess member) throws InterruptedException {
        member.fenceOff(MemberProcess.State.STOPPED, FENCE_BOUND);
        long signalledAtMillis = System.currentTimeMillis();
        long startNanos = System.nanoTime();
        int exitCode = member.process().terminate(STOP_BOUND);
        return new Stop(signalledAtMillis, Duration.ofNanos(System.nanoTime() - startNanos), exitCode);
    }

    /** Every member slot, in the order they were started. */
    List<MemberProcess> members() {
        return List.copyOf(members);
    }

    List<MemberProcess> running() {
        return members.stream().filter(MemberProcess::isRunning).toList();
    }

    /** {@code GET path} on the first running member that takes it (any member answers any API call). */
    ApiClient.Reply get(String path) {
        for (MemberProcess member : running()) {
            Optional<ApiClient.Reply> reply = member.call(api -> api.get(path));
            if (reply.isPresent()) {
                return reply.get();
            }
        }
        throw new AssertionError("no running member to ask GET " + path + ": " + members);
    }

    /** {@code GET /api/cluster} from the first running member that answers it. */
    ClusterSnapshot snapshot() {
        return trySnapshot().orElseThrow(() -> new AssertionError("no running member answered GET /api/cluster: "
                + members));
    }

    /** Like {@link #snapshot()}, but empty rather than failing when no member answers (for background readers). */
    Optional<ClusterSnapshot> trySnapshot() {
        for (MemberProcess member : running()) {
            Optional<ApiClient.Reply> reply = member.call(api -> api.get("/api/cluster"));
            if (reply.isPresent() && reply.get().status() == 200) {
                return Optional.of(ClusterSnapshot.parse(reply.get().json(), System.currentTimeMillis()));
            }
        }
        return Optional.empty();
    }

    /**
     * Waits until the running members, and only they, are live, every shard is held, and each running member holds
     * at least half its fair share ({@code shardCount / members / 2}): the shards are spread over the members.
     *
     * @return the snapshot that showed it
     */
    ClusterSnapshot awaitSpread(Duration bound) {
        ClusterSnapshot[] last = new ClusterSnapshot[1];
        Await.until(() -> "shards spread over " + running() + "; last seen: "
                        + (last[0] == null ? "nothing" : last[0].describe()), bound,
                Throttled.every(Duration.ofMillis(200), () -> {
                    last[0] = snapshot();
                    return spread(last[0]);
                }));
        return last[0];
    }

    private boolean spread(ClusterSnapshot snapshot) {
        Set<Integer> runningIds = new TreeSet<>();
        running().forEach(m -> runningIds.add(m.nodeId()));
        int least = Math.max(1, snapshot.shardCount() / Math.max(1, runningIds.size()) / 2);
        return snapshot.liveNodeIds().equals(runningIds) && snapshot.unheldShards() == 0
                && runningIds.stream().allMatch(id -> snapshot.shardsHeldBy(id).size() >= least);
    }

    /** The running member that holds the most of {@code shards} in {@code snapshot} (the first such, on a tie). */
    MemberProcess holdingMostOf(ClusterSnapshot snapshot, Set<Integer> shards) {
        MemberProcess best = null;
        int bestCount = -1;
        for (MemberProcess member : running()) {
            Set<Integer> held = new TreeSet<>(snapshot.shardsHeldBy(member.nodeId()));
            held.retainAll(shards);
            if (held.size() > bestCount) {
                best = member;
                bestCount = held.size();
            }
        }
        if (best == null) {
            throw new AssertionError("no running member: " + members);
        }
        return best;
    }

    /** Fails, naming it and showing its output, if a member this fixture did not kill or stop has died. */
    void assertNoneDied() {
        for (MemberProcess member : members) {
            MemberProcess.State state = member.state();
            boolean shouldLive = state == MemberProcess.State.RUNNING || state == MemberProcess.State.PAUSED;
            if (shouldLive && !member.process().isAlive()) {
                throw new AssertionError(member + " died by itself; last lines: " + member.process().tail());
            }
        }
    }

    /** The last lines of every process of every member, the earlier processes of a slot first. */
    String outputs(int lastLines) {
        StringBuilder out = new StringBuilder();
        for (MemberProcess member : members) {
            List<ServerProcess> processes = member.processes();
            for (int i = 0; i < processes.size(); i++) {
                List<String> lines = processes.get(i).output();
                int from = Math.max(0, lines.size() - lastLines);
                out.append("---- ").append(member.name()).append(", process ").append(i + 1).append(" of ")
                        .append(processes.size()).append(" (pid ").append(processes.get(i).pid()).append("), last ")
                        .append(lines.size() - from).append(" of ").append(lines.size()).append(" lines ----\n");
                lines.subList(from, lines.size()).forEach(line -> out.append(line).append('\n'));
            }
        }
        return out.toString();
    }

    @Override
    public void afterTestExecution(ExtensionContext context) throws Exception {
        if (context.getExecutionException().isPresent()) {
            System.out.println("==== " + context.getDisplayName() + " failed; output of the server processes:\n"
                    + outputs(OUTPUT_LINES_ON_FAILURE));
        }
        close();
    }

    /** Continues paused processes and kills every process still running. Idempotent. */
    @Override
    public void close() throws InterruptedException {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (MemberProcess member : members) {
            for (ServerProcess process : member.processes()) {
                if (process.isAlive()) {
                    // SIGKILL ends a stopped process too; SIGCONT first so nothing is left stopped if the kill fails.
                    signalQuietly(process.pid(), "CONT");
                    process.close();
                }
            }
        }
    }

    private static void signal(MemberProcess member, String signal) {
        long pid = member.process().pid();
        int exit = runKill(pid, signal);
        if (exit != 0) {
            throw new AssertionError("kill -" + signal + " " + pid + " (" + member + ") exited with " + exit);
        }
    }

    private static void signalQuietly(long pid, String signal) {
        try {
            runKill(pid, signal);
        } catch (AssertionError | UncheckedIOException e) {
            // the process ended by itself in the meantime; close() kills what is left regardless
        }
    }

    private static int runKill(long pid, String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true)
                    .start();
            if (!kill.waitFor(SIGNAL_BOUND.toMillis(), TimeUnit.MILLISECONDS)) {
                kill.destroyForcibly();
                throw new AssertionError("kill -" + signal + " " + pid + " did not return within " + SIGNAL_BOUND);
            }
            return kill.exitValue();
        } catch (IOException e) {
            throw new UncheckedIOException("could not run kill -" + signal + " " + pid, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while sending " + signal + " to " + pid, e);
        }
    }

    /** Whether /proc/<pid>/stat shows state T (stopped): the third field, after the parenthesised command. */
    private static boolean stopped(Path stat) {
        try {
            String text = Files.readString(stat, StandardCharsets.UTF_8);
            String afterCommand = text.substring(text.lastIndexOf(')') + 1).trim();
            return afterCommand.startsWith("T");
        } catch (IOException e) {
            return false; // read again on the next poll
        }
    }
}
