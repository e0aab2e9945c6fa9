package dev.tickwheel.bench.cluster;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * One member slot of a {@link ClusterProcesses}: the server process in it now (a restart puts a new process, which
 * may join with a new node id, in the same slot) and a gate for the benchmark's API calls.
 *
 * <p>The gate: {@link #call} sends a request only while the member is {@link State#RUNNING}. Before the benchmark
 * kills or stops the process it {@linkplain #fenceOff closes the gate} and waits for the calls in flight, like a load
 * balancer taking a server out before maintenance. So every run the benchmark sent got its answer (and the
 * benchmark knows the instance) or was never sent: the take-over measured is the servers', not lost API answers.
 *
 * <p>Thread-safe: the state, process, client and node id are volatile (the benchmark thread writes them, the run
 * stream's senders read them); the gate's counter is incremented before the state is read, so once
 * {@link #fenceOff} has seen zero calls in flight after writing the state, every later call sees the new state.
 */
final class Member {

    /** Where the slot's process is. Only RUNNING members take API calls. */
    enum State {
        STARTING, RUNNING, KILLED, STOPPED
    }

    private final String name;
    private final AtomicInteger callsInFlight = new AtomicInteger(); // the gate's counter, see the class comment
    private volatile MemberProcess process; // written by the benchmark thread, read by senders
    private volatile MemberApi api; // likewise
    private volatile int nodeId = -1; // likewise
    private volatile State state = State.STARTING; // the gate: written by the benchmark thread, read by every caller
    private volatile int processes; // how many processes this slot has had; written by the benchmark thread

    Member(String name) {
        this.name = name;
    }

    /** A new process in this slot (the first, or one after a kill or stop): not yet taking calls. */
    void starting(MemberProcess next) {
        process = next;
        api = null;
        nodeId = -1;
        state = State.STARTING;
        processes++;
    }

    /** The process listens and joined as {@code joinedAs}: calls may go to it. */
    void running(MemberApi client, int joinedAs) {
        api = client;
        nodeId = joinedAs;
        state = State.RUNNING;
    }

    /** Runs {@code request} against this member if it is running; empty if it is not (then nothing was sent). */
    <T> Optional<T> call(Function<MemberApi, T> request) {
        callsInFlight.incrementAndGet();
        try {
            MemberApi client = api;
            if (state != State.RUNNING || client == null) {
                return Optional.empty();
            }
            return Optional.of(request.apply(client));
        } finally {
            callsInFlight.decrementAndGet();
        }
    }

    /**
     * Takes the member out of the rotation ({@code next} is what is about to happen to it) and waits, at most
     * {@code bound}, for its calls in flight to end.
     */
    void fenceOff(State next, Duration bound) throws InterruptedException {
        if (next == State.RUNNING || next == State.STARTING) {
            throw new IllegalArgumentException("fenceOff needs a state that takes no calls: " + next);
        }
        state = next;
        long deadlineNanos = System.nanoTime() + bound.toNanos();
        while (callsInFlight.get() > 0) {
            if (System.nanoTime() - deadlineNanos > 0) {
                throw new IllegalStateException(name + ": " + callsInFlight.get() + " API calls still in flight "
                        + bound + " after it was taken out of the rotation");
            }
            Thread.sleep(1);
        }
    }

    String name() {
        return name;
    }

    /** The node id the current process joined as, or -1 before it did. */
    int nodeId() {
        return nodeId;
    }

    State state() {
        return state;
    }

    boolean isRunning() {
        return state == State.RUNNING;
    }

    MemberProcess process() {
        return process;
    }

    /** The current process's client; null before it runs. */
    MemberApi api() {
        return api;
    }

    int processes() {
        return processes;
    }

    @Override
    public String toString() {
        MemberProcess p = process;
        return name + " (node " + nodeId + ", pid " + (p == null ? "none" : p.pid()) + ", " + state + ")";
    }
}
