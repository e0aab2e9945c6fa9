package dev.tickwheel.server.cluster.process;

import dev.tickwheel.server.Await;
import dev.tickwheel.server.api.ApiClient;
import dev.tickwheel.server.api.ServerProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * One member slot of a {@link ClusterNodes} cluster: the server process running in it now (a restart puts a new
 * process, with a new node id, in the same slot), the processes that ran in it before (for their output), and a gate
 * for API calls.
 *
 * <p>The gate: {@link #call} runs a request only while the member is {@link State#RUNNING}; before the fixture
 * kills, pauses or stops the process it {@linkplain #fenceOff closes the gate} and waits for the calls in flight.
 * So no test request is cut by a fault it injected itself: a run either got its 201 (and the test knows the
 * instance) or was never sent, like a load balancer that takes a member out before its maintenance. The faults under
 * test are the ones the <em>server</em> suffers, not lost API answers.
 *
 * <p>Thread-safe: the state is volatile (the load threads read it, the test thread writes it); the gate is a
 * counter incremented before the state is read, so once {@link #fenceOff} has seen zero calls in flight after writing
 * the state, every later call sees the new state (both are sequentially consistent).
 */
final class MemberProcess {

    /** Where the slot's process is. Only RUNNING members take API calls. */
    enum State {
        STARTING, RUNNING, PAUSED, KILLED, STOPPED
    }

    private final String name;
    private final List<ServerProcess> earlier = new CopyOnWriteArrayList<>();
    private final AtomicInteger callsInFlight = new AtomicInteger(); // the gate's counter, see the class comment
    private volatile ServerProcess process; // written by the test thread, read by load and observer threads
    private volatile ApiClient api; // likewise
    private volatile int nodeId = -1; // likewise
    private volatile State state = State.STARTING; // the gate: written by the test thread, read by every caller

    MemberProcess(String name, ServerProcess process) {
        this.name = name;
        this.process = process;
    }

    /** A new process in this slot, e.g. after a kill: the old one's output is kept. */
    void replaceProcess(ServerProcess next) {
        earlier.add(process);
        process = next;
        api = null;
        nodeId = -1;
        state = State.STARTING;
    }

    /** The process listens and has joined as {@code joinedAs}: calls may go to it. */
    void running(ApiClient client, int joinedAs) {
        this.api = client;
        this.nodeId = joinedAs;
        this.state = State.RUNNING;
    }

    /**
     * Runs {@code request} against this member if it is running; empty if it is not (then nothing was sent).
     * Exceptions of the request pass through.
     */
    <T> Optional<T> call(Function<ApiClient, T> request) {
        callsInFlight.incrementAndGet();
        try {
            ApiClient client = api;
            if (state != State.RUNNING || client == null) {
                return Optional.empty();
            }
            return Optional.of(request.apply(client));
        } finally {
            callsInFlight.decrementAndGet();
        }
    }

    /** Takes the member out of the rotation ({@code next} is what is about to happen to it) and waits for its calls. */
    void fenceOff(State next, Duration bound) {
        if (next == State.RUNNING || next == State.STARTING) {
            throw new IllegalArgumentException("fenceOff needs a state that takes no calls: " + next);
        }
        state = next;
        Await.until(() -> name + ": the API calls in flight to end (" + callsInFlight.get() + " left)", bound,
                () -> callsInFlight.get() == 0);
    }

    /** Back in the rotation after a pause. */
    void resumed() {
        if (state != State.PAUSED) {
            throw new IllegalStateException(name + " is " + state + ", not PAUSED");
        }
        state = State.RUNNING;
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

    ServerProcess process() {
        return process;
    }

    /** Every process this slot has had, the current one last. */
    List<ServerProcess> processes() {
        List<ServerProcess> all = new ArrayList<>(earlier);
        all.add(process);
        return all;
    }

    @Override
    public String toString() {
        return name + " (node " + nodeId + ", pid " + process.pid() + ", " + state + ")";
    }
}
