package dev.tickwheel.bench.e2e;

import dev.tickwheel.server.dispatch.JobContext;
import dev.tickwheel.server.dispatch.JobHandler;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The benchmark's in-process target: counts calls and calls for an instance already seen (duplicates).
 *
 * <p>Thread-safe (a concurrent set and adders).
 */
public final class CountingHandler implements JobHandler {

    private final Set<Long> seen = ConcurrentHashMap.newKeySet(1 << 17);
    private final LongAdder calls = new LongAdder();
    private final LongAdder duplicates = new LongAdder();

    @Override
    public void handle(JobContext context) {
        calls.increment();
        if (!seen.add(context.instanceId())) {
            duplicates.increment();
        }
    }

    public long calls() {
        return calls.sum();
    }

    public long duplicates() {
        return duplicates.sum();
    }
}
