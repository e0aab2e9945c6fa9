package dev.tickwheel.bench.peer;

import dev.tickwheel.server.wheel.InstanceTimeWheelService;

/**
 * Tickwheel's {@link InstanceTimeWheelService} with its defaults: precise wheel 1 ms × 4096, coarse wheel 10 s × 12,
 * hand-off at 60 s, CARGO by primitive {@code long} ID, bounded dispatch executor (one thread, queue 8192, instances
 * handed to it 5 ms early and held until their deadline). Tasks run on the dispatch executor, so lateness includes
 * that hand-over.
 */
final class TickwheelService implements Contender {

    private final InstanceTimeWheelService service;

    /** @param expectedInstances CARGO's initial size (0: the default, grown as needed) */
    TickwheelService(int expectedInstances) {
        this.service = InstanceTimeWheelService.builder().expectedInstances(expectedInstances).build();
    }

    @Override
    public void schedule(long id, long delayMs, Runnable task) {
        service.schedule(id, delayMs, task);
    }

    @Override
    public boolean cancel(long id) {
        return service.cancel(id);
    }

    @Override
    public void close() {
        service.close();
    }
}
