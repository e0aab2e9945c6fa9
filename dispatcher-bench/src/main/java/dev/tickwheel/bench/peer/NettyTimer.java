package dev.tickwheel.bench.peer;

import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.TimeUnit;

/** Netty's {@code HashedWheelTimer}, 1 ms tick, 4096 ticks per wheel, tasks run on its worker (its default). */
final class NettyTimer implements HandleTimer {

    private final HashedWheelTimer timer = new HashedWheelTimer(
            new DefaultThreadFactory("netty-timer", true), 1, TimeUnit.MILLISECONDS, 4096);

    NettyTimer() {
        timer.start();
    }

    @Override
    public Object schedule(long delayMs, Runnable task) {
        TimerTask nettyTask = task instanceof TimerTask t ? t : timeout -> task.run();
        return timer.newTimeout(nettyTask, delayMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public boolean cancel(Object handle) {
        return ((Timeout) handle).cancel();
    }

    @Override
    public void close() {
        timer.stop();
    }
}
