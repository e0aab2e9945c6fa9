package dev.tickwheel.bench.jmh;

import dev.tickwheel.server.dispatch.CallSlots;
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
import org.openjdk.jmh.annotations.Threads;

/**
 * The cost of admission control per call when slots are free (issue 25): one op is the dispatcher's path for one
 * instance through {@link CallSlots}, that is the {@code acquire} of a fresh ticket that is admitted at once, then
 * {@code callEnded}, then {@code release}. The variants differ only in the levels a ticket has besides its target and
 * the server:
 *
 * <pre>
 *   variant     job level                pool level
 *   none        —                        —
 *   job-limit   maxConcurrent 100 000    —
 *   pool        —                        maxConcurrent 100 000, no rate
 *   pool-rate   —                        no concurrency limit, a rate of one permit per 1 ns (the arithmetic runs,
 *                                        the permit is always due)
 * </pre>
 *
 * The cost of a pool check per admission is {@code pool − none} (and {@code pool-rate − none} with a rate).
 *
 * <p>{@code busy}: {@code false}, nothing else is in flight, so the target's entry (and the job's, with a job limit)
 * is made by every acquire and forgotten by every {@code callEnded}, as on an idle server; {@code true}, one other
 * ticket of the same job, pool and target stays admitted for the whole trial, so those entries persist, as on a
 * server with calls in flight. A pool's entry is never forgotten, so it persists in both.
 *
 * <p>{@link #admitContended} runs the same op on two threads against one {@code CallSlots} (its monitor is the
 * contended part).
 *
 * <p>Run alone (after {@code mvn -B -q -pl dispatcher-bench -am package -DskipTests}):
 * <pre>
 * java -jar dispatcher-bench/target/benchmarks.jar CallSlotsAdmissionBenchmark -f 3 -wi 3 -w 1 -i 5 -r 1 \
 *     -prof perfnorm:events=task-clock
 * </pre>
 * The differences are tens of nanoseconds: on a shared machine run one fork of each variant in turn
 * ({@code -p busy=... -p variant=... -f 1}, several rounds) and compare the CPU time per op ({@code task-clock}, a
 * software event, so it works without a hardware PMU) beside the wall time; docs/benchmarks.md has the loop.
 *
 * <p>Thread-safe as JMH uses it: {@link Slots} is shared by the benchmark's threads ({@code CallSlots} is
 * thread-safe), {@link Tickets} is confined to one.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CallSlotsAdmissionBenchmark {

    private static final long JOB_ID = 1;
    private static final int PRIORITY = 5;
    /** Large enough that no variant's job or pool limit binds, even with the held ticket and two threads. */
    private static final int NEVER_BINDS = 100_000;
    private static final String TARGET = "handlers";
    /** The handler pool's limit as the server's default 64 handler threads would set it. */
    private static final int TARGET_LIMIT = 64;
    private static final int SERVER_LIMIT = 4_000;
    private static final long AGING_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** The admission control under test, shared by the benchmark's threads. */
    @State(Scope.Benchmark)
    public static class Slots {

        @Param({"none", "job-limit", "pool", "pool-rate"})
        public String variant;

        @Param({"false", "true"})
        public boolean busy;

        CallSlots slots;
        int jobLimit;
        CallSlots.PoolLimits pool;
        private CallSlots.Ticket held;

        @Setup(Level.Trial)
        public void create() {
            // No wake-up is ever due: a pool's permit is 1 ns apart and an op takes longer than that.
            slots = new CallSlots(SERVER_LIMIT, AGING_NANOS, System::nanoTime, (delayNanos, task) -> {
                throw new IllegalStateException(variant + ": a pool's rate held a ticket back " + delayNanos
                        + " ns; this benchmark measures admissions that are not held back");
            });
            switch (variant) {
                case "none" -> { }
                case "job-limit" -> jobLimit = NEVER_BINDS;
                case "pool" -> pool = new CallSlots.PoolLimits("bench-pool", NEVER_BINDS, 0);
                case "pool-rate" -> pool = new CallSlots.PoolLimits("bench-pool", 0, 1);
                default -> throw new IllegalArgumentException("unknown variant: " + variant);
            }
            if (busy) {
                held = ticket(-1);
                admitted(slots.acquire(held));
            }
        }

        CallSlots.Ticket ticket(long instanceId) {
            return new CallSlots.Ticket(instanceId, JOB_ID, PRIORITY, jobLimit, false, pool, TARGET, TARGET_LIMIT,
                    t -> {
                        throw new IllegalStateException("admitted later, not at once: " + t);
                    });
        }

        void admitted(CallSlots.Admission admission) {
            if (admission != CallSlots.Admission.ADMITTED) {
                throw new IllegalStateException(variant + ": a ticket was " + admission + ", not admitted at once");
            }
        }

        @TearDown(Level.Trial)
        public void check() {
            if (held != null) {
                slots.release(held);
            }
            if (slots.inFlight() != 0 || slots.waiting() != 0) {
                throw new IllegalStateException(variant + ": " + slots.inFlight() + " in flight and "
                        + slots.waiting() + " waiting after the trial");
            }
        }
    }

    /** One thread's instance ids. */
    @State(Scope.Thread)
    public static class Tickets {
        long nextInstanceId;
    }

    @Benchmark
    public CallSlots.Ticket admit(Slots s, Tickets t) {
        return admitEndRelease(s, t);
    }

    @Benchmark
    @Threads(2)
    public CallSlots.Ticket admitContended(Slots s, Tickets t) {
        return admitEndRelease(s, t);
    }

    private static CallSlots.Ticket admitEndRelease(Slots s, Tickets t) {
        CallSlots.Ticket ticket = s.ticket(t.nextInstanceId++);
        s.admitted(s.slots.acquire(ticket));
        s.slots.callEnded(ticket);
        s.slots.release(ticket);
        return ticket;
    }
}
