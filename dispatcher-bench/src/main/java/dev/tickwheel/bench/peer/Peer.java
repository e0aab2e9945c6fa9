package dev.tickwheel.bench.peer;

import java.util.Arrays;
import java.util.List;

/**
 * Every contender the benchmarks run, by the name used on command lines and in docs/benchmarks.md.
 *
 * <p>{@link Kind#TIMER} peers are plain timers cancelled through their handle; {@link Kind#INSTANCE} peers are
 * cancellable by unique ID through an ID map (their own, or a boxed {@code ConcurrentHashMap} added here).
 */
public enum Peer {
    TICKWHEEL_TIMER("tickwheel-timer", Kind.TIMER, "Tickwheel HashedWheelTimer, 1 ms × 4096, tasks on its worker"),
    NETTY("netty", Kind.TIMER, "Netty HashedWheelTimer 4.2, 1 ms × 4096, tasks on its worker"),
    KAFKA("kafka", Kind.TIMER, "Kafka SystemTimer 4.4 (1 ms × 20, hierarchical) + SystemTimerReaper"),
    STPE("stpe", Kind.TIMER, "JDK ScheduledThreadPoolExecutor, 1 thread, removeOnCancel"),
    POWERJOB("powerjob", Kind.TIMER, "PowerJob HashedWheelTimer 5.1.1, 1 ms × 4096, tasks on its indicator"),

    TICKWHEEL_SERVICE("tickwheel-service", Kind.INSTANCE,
            "Tickwheel InstanceTimeWheelService, defaults (1 ms × 4096 + 10 s × 12, long-keyed CARGO, dispatch pool)"),
    TICKWHEEL_SERVICE_SIZED("tickwheel-service-sized", Kind.INSTANCE,
            "Tickwheel InstanceTimeWheelService, CARGO sized for the run (expectedInstances): no growth, as PowerJob's"
                    + " CARGO, which keeps its capacity from one iteration to the next"),
    TICKWHEEL_TIMER_MAP("tickwheel-timer+map", Kind.INSTANCE,
            "Tickwheel HashedWheelTimer (as above) + ConcurrentHashMap<Long, TimerFuture>: the boxed alternative"),
    NETTY_MAP("netty+map", Kind.INSTANCE, "Netty (as above) + ConcurrentHashMap<Long, Timeout>"),
    KAFKA_MAP("kafka+map", Kind.INSTANCE, "Kafka (as above) + ConcurrentHashMap<Long, TimerTask>"),
    STPE_MAP("stpe+map", Kind.INSTANCE, "STPE (as above) + ConcurrentHashMap<Long, ScheduledFuture>"),
    POWERJOB_SERVICE("powerjob-service", Kind.INSTANCE,
            "PowerJob InstanceTimeWheelService 5.1.1 itself (static; its CARGO; cancel = fetchTimerFuture(id).cancel());"
                    + " CARGO emptied between iterations but keeping the table it grew"),
    POWERJOB_SERVICE_FRESH("powerjob-service-fresh", Kind.INSTANCE,
            "PowerJob InstanceTimeWheelService 5.1.1 itself, CARGO reset between iterations to a fresh JVM's empty"
                    + " table: it grows again each iteration, as tickwheel-service's does"),
    POWERJOB_TWO_TIER("powerjob-2tier", Kind.INSTANCE,
            "PowerJob wheels 1 ms × 4096 + 10 s × 12, ConcurrentHashMap<Long, TimerFuture> CARGO, PowerJob routing"),

    NONE("jvm-only", Kind.BASELINE, "no timer at all: what the JVM itself costs while idle");

    /** How a peer is cancelled. */
    public enum Kind { TIMER, INSTANCE, BASELINE }

    private final String id;
    private final Kind kind;
    private final String description;

    Peer(String id, Kind kind, String description) {
        this.id = id;
        this.kind = kind;
        this.description = description;
    }

    public String id() {
        return id;
    }

    public Kind kind() {
        return kind;
    }

    public String description() {
        return description;
    }

    /** Whether this peer is Tickwheel's own code (ratios are computed against the others). */
    public boolean isTickwheel() {
        return id.startsWith("tickwheel");
    }

    /**
     * Builds a started contender.
     *
     * @param capacity IDs run from 0 (inclusive) to this (exclusive)
     */
    public Contender create(int capacity) {
        return switch (this) {
            case TICKWHEEL_TIMER -> new HandleArrayContender(new TickwheelTimer(), capacity);
            case NETTY -> new HandleArrayContender(new NettyTimer(), capacity);
            case KAFKA -> new HandleArrayContender(new KafkaTimer(), capacity);
            case STPE -> new HandleArrayContender(new StpeTimer(), capacity);
            case POWERJOB -> new HandleArrayContender(new PowerJobTimer(1, 4096, 0), capacity);
            case TICKWHEEL_SERVICE -> new TickwheelService(0);
            case TICKWHEEL_SERVICE_SIZED -> new TickwheelService(capacity);
            case TICKWHEEL_TIMER_MAP -> new BoxedMapContender(new TickwheelTimer());
            case NETTY_MAP -> new BoxedMapContender(new NettyTimer());
            case KAFKA_MAP -> new BoxedMapContender(new KafkaTimer());
            case STPE_MAP -> new BoxedMapContender(new StpeTimer());
            case POWERJOB_SERVICE -> new PowerJobService(false);
            case POWERJOB_SERVICE_FRESH -> new PowerJobService(true);
            case POWERJOB_TWO_TIER -> new PowerJobTwoTier();
            case NONE -> new NoTimer();
        };
    }

    public static Peer byId(String id) {
        return Arrays.stream(values()).filter(p -> p.id.equals(id)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown peer: " + id + "; known: " + ids(all())));
    }

    /** Every real peer (not the baseline). */
    public static List<Peer> all() {
        return Arrays.stream(values()).filter(p -> p.kind != Kind.BASELINE).toList();
    }

    public static List<Peer> ofKind(Kind kind) {
        return Arrays.stream(values()).filter(p -> p.kind == kind).toList();
    }

    public static String ids(List<Peer> peers) {
        return String.join(",", peers.stream().map(Peer::id).toList());
    }
}
