package dev.tickwheel.bench.jmh;

import dev.tickwheel.bench.peer.Contender;
import dev.tickwheel.bench.peer.NoopTask;
import dev.tickwheel.bench.peer.Peer;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Scaling: the cost of one schedule (delay 1–60 s) followed by the cancel of the same ID, with {@code pending}
 * other timers waiting 10–60 minutes out. A flat line from 10³ to 10⁶ (10⁷) pending is the goal.
 *
 * <p>The peer's worker threads keep running during the measurement (Netty's and PowerJob's tick every millisecond),
 * so their cost on a 2-core machine shows up here as it would in production.
 *
 * <p>Run alone (after {@code mvn -B -q -pl dispatcher-bench -am package -DskipTests}):
 * <pre>
 * java -jar dispatcher-bench/target/benchmarks.jar ScheduleCancelBenchmark -p pending=1000,1000000 \
 *     -p peer=tickwheel-service,netty+map,stpe+map,powerjob-2tier -f 3 -wi 2 -i 3
 * </pre>
 * The suite ({@code dev.tickwheel.bench.Suite}) runs it through the JMH API with every peer.
 *
 * <p>Not thread-safe: one benchmark thread per state.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ScheduleCancelBenchmark {

    private static final int IN_FLIGHT_IDS = 1024;

    @Param({"tickwheel-service", "tickwheel-timer", "netty", "netty+map", "kafka", "kafka+map", "stpe", "stpe+map",
            "powerjob", "powerjob-service", "powerjob-2tier", "tickwheel-timer+map"})
    public String peer;

    @Param({"1000", "10000", "100000", "1000000"})
    public int pending;

    private Contender contender;
    private final long[] delaysMs = new long[IN_FLIGHT_IDS];
    private int next;

    @Setup(Level.Trial)
    public void fill() throws InterruptedException {
        contender = Peer.byId(peer).create(pending + IN_FLIGHT_IDS);
        SplittableRandom random = new SplittableRandom(1);
        for (int i = 0; i < pending; i++) {
            contender.schedule(i, 600_000 + random.nextLong(3_000_000), NoopTask.INSTANCE);
        }
        for (int i = 0; i < IN_FLIGHT_IDS; i++) {
            delaysMs[i] = 1_000 + random.nextLong(59_001);
        }
        // let the worker move the fill into its wheel before measuring
        Thread.sleep(1_000);
    }

    @Benchmark
    public boolean scheduleThenCancel() {
        int slot = next++ & (IN_FLIGHT_IDS - 1);
        long id = pending + slot;
        contender.schedule(id, delaysMs[slot], NoopTask.INSTANCE);
        return contender.cancel(id);
    }

    @TearDown(Level.Trial)
    public void close() {
        contender.close();
    }
}
