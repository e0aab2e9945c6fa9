package dev.tickwheel.bench.e2e;

import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.store.InstanceFilter;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.store.Page;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Reads every instance row of a store, after a run, in pages of 10 000 by id.
 *
 * <p>Stateless.
 */
public final class StoreRows {

    private static final int PAGE = 10_000;

    private StoreRows() {
    }

    /** Every instance, in ascending id order. */
    public static List<Instance> readAll(InstanceStore instances) {
        List<Instance> all = new ArrayList<>();
        long beforeId = Long.MAX_VALUE;
        while (true) {
            Page<Instance, Long> page = instances.listLatest(InstanceFilter.ALL, beforeId, PAGE);
            all.addAll(page.items());
            if (page.nextCursor().isEmpty()) {
                Collections.reverse(all); // pages come newest first
                return all;
            }
            beforeId = page.nextCursor().get();
        }
    }
}
