package dev.tickwheel.bench.peer;

import java.lang.reflect.Field;
import java.util.Map;
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
 * empties CARGO, so that a harness that builds a fresh contender per iteration starts each one with an empty map, as
 * a fresh JVM would, instead of one grown by the earlier iterations' leaked entries. The static wheels cannot be
 * stopped; their pending futures are cancelled or fire as usual.
 *
 * <p>Thread-safe as the service is.
 */
final class PowerJobService implements Contender {

    private static final Map<?, ?> CARGO = cargo();

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
