package dev.tickwheel.bench.e2e;

import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.store.Page;
import java.util.ArrayList;
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

    public static List<Instance> readAll(InstanceStore instances) {
        List<Instance> all = new ArrayList<>();
        long afterId = 0;
        while (true) {
            Page<Instance> page = instances.list(null, null, afterId, PAGE);
            all.addAll(page.items());
            if (page.nextCursor().isEmpty()) {
                return all;
            }
            afterId = page.nextCursor().getAsLong();
        }
    }
}
