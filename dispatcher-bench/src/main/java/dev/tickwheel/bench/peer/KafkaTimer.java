package dev.tickwheel.bench.peer;

import org.apache.kafka.server.util.timer.SystemTimer;
import org.apache.kafka.server.util.timer.SystemTimerReaper;
import org.apache.kafka.server.util.timer.TimerTask;

/**
 * Kafka's {@code SystemTimer} with its defaults (1 ms tick, 20 buckets, hierarchical overflow wheels), wrapped in its
 * {@code SystemTimerReaper}, the thread Kafka itself uses to call {@code advanceClock(200 ms)} in a loop. Tasks run
 * on the timer's own single-thread executor.
 */
final class KafkaTimer implements HandleTimer {

    private final SystemTimerReaper timer = new SystemTimerReaper("kafka-reaper", new SystemTimer("kafka-timer"));

    @Override
    public Object schedule(long delayMs, Runnable task) {
        KafkaTask timerTask = new KafkaTask(delayMs, task);
        timer.add(timerTask);
        return timerTask;
    }

    @Override
    public boolean cancel(Object handle) {
        // Kafka's cancel() returns nothing; it always unlinks a pending entry.
        ((TimerTask) handle).cancel();
        return true;
    }

    @Override
    public void close() {
        try {
            timer.close();
        } catch (Exception e) {
            throw new IllegalStateException("closing the Kafka timer failed", e);
        }
    }

    private static final class KafkaTask extends TimerTask {
        private final Runnable task;

        KafkaTask(long delayMs, Runnable task) {
            super(delayMs);
            this.task = task;
        }

        @Override
        public void run() {
            task.run();
        }
    }
}
