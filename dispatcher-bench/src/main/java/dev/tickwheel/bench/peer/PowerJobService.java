package dev.tickwheel.bench.peer;

import java.lang.reflect.Field;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import tech.powerjob.server.common.timewheel.TimerFuture;
import tech.powerjob.server.common.timewheel.TimerTask;
import tech.powerjob.server.common.timewheel.holder.InstanceTimeWheelService;

/**
 * PowerJob's own {@code InstanceTimeWheelService} (powerjob-server-common 5.1.1), called as PowerJob's server calls
 * it: the static {@code schedule(Long, Long, TimerTask)}, and cancel by unique ID as
 * {@code fetchTimerFuture(id).cancel()}. Its two wheels (1 ms × 4096 with 4 × cores task threads, 10 s × 12) and its
 * {@code ConcurrentHashMap<Long, TimerFuture>} CARGO are static, built once per JVM; the benchmarks run every peer in
 * JVMs of its own, so nothing else shares them.
 *
 * <p>What the service does, unchanged here: delays of 1 s or less are not put in CARGO (they cannot be cancelled by
 * ID), and cancel flips the future's state and queues it for the wheel's indicator but leaves the CARGO entry, so the
 * map keeps every instance ever scheduled until the same ID is scheduled again. The only help given: {@link #close()}
 * empties CARGO, so that a harness that builds a fresh contender per iteration does not carry the earlier
 * iterations' leaked entries. The static wheels cannot be stopped; their pending futures are cancelled or fire as
 * usual.
 *
 * <p>Two starting points for CARGO, one peer each. {@code powerjob-service}: emptied by {@code clear()}, which keeps
 * the table a {@link ConcurrentHashMap} has grown (it never shrinks), so from the second iteration on PowerJob
 * schedules into a table already sized for the run; compare it with {@code tickwheel-service-sized}. {@code
 * powerjob-service-fresh}: also put back to the state a fresh JVM starts with (no table, default size), so that each
 * iteration grows it again, as Tickwheel's fresh service grows its own; compare it with {@code tickwheel-service}. The
 * reset writes two of the map's private fields ({@code table}, {@code sizeCtl}) while nothing else uses it (every
 * instance is cancelled before close), which needs {@code --add-opens java.base/java.util.concurrent}; the benchmark
 * JVMs get it ({@code ChildJvm.JVM_FLAGS}).
 *
 * <p>Thread-safe as the service is.
 */
final class PowerJobService implements Contender {

    private static final Map<?, ?> CARGO = cargo();

    private final boolean fresh;

    /** @param fresh whether {@link #close()} also gives CARGO back its initial (fresh JVM) table */
    PowerJobService(boolean fresh) {
        this.fresh = fresh;
    }

    @Override
    public void schedule(long id, long delayMs, Runnable task) {
        TimerTask powerJobTask = task instanceof TimerTask t ? t : task::run;
        InstanceTimeWheelService.schedule(id, delayMs, powerJobTask);
    }

    @Override
    public boolean cancel(long id) {
        TimerFuture future = InstanceTimeWheelService.fetchTimerFuture(id);
        return future != null && future.cancel();
    }

    @Override
    public void close() {
        CARGO.clear();
        if (fresh) {
            resetToInitialTable((ConcurrentHashMap<?, ?>) CARGO);
        }
    }

    /**
     * Gives an empty map the state {@code new ConcurrentHashMap<>()} has: no table (the next put allocates the default
     * 16) and no size hint. Only while no other thread uses the map.
     */
    private static void resetToInitialTable(ConcurrentHashMap<?, ?> map) {
        if (!map.isEmpty()) {
            throw new IllegalStateException("CARGO must be empty to be reset, it holds " + map.size());
        }
        try {
            Field table = ConcurrentHashMap.class.getDeclaredField("table");
            Field sizeCtl = ConcurrentHashMap.class.getDeclaredField("sizeCtl");
            table.setAccessible(true);
            sizeCtl.setAccessible(true);
            table.set(map, null);
            sizeCtl.setInt(map, 0);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("cannot reset ConcurrentHashMap's table (run with --add-opens "
                    + "java.base/java.util.concurrent=ALL-UNNAMED)", e);
        }
    }

    private static Map<?, ?> cargo() {
        try {
            Field field = InstanceTimeWheelService.class.getDeclaredField("CARGO");
            field.setAccessible(true);
            return (Map<?, ?>) field.get(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("PowerJob's InstanceTimeWheelService has no CARGO map any more", e);
        }
    }
}
