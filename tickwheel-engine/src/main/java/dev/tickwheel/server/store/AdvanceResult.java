package dev.tickwheel.server.store;

import dev.tickwheel.server.instance.NewInstance;
import java.util.List;

/**
 * What {@link InstanceStore#createInstancesAndAdvanceJob} did.
 *
 * <p>Immutable.
 *
 * @param advanced          true if the job's next trigger time was still the expected one and has been advanced;
 *                          false if another loader (or an edit) moved it first, in which case nothing was written
 * @param created           the instances inserted, in the order given; empty if not advanced
 * @param skippedDuplicates the instances not inserted because the job already had an instance for that schedule
 *                          slot; empty if not advanced
 */
public record AdvanceResult(boolean advanced, List<NewInstance> created, List<NewInstance> skippedDuplicates) {

    /** The result of losing the compare-and-set: nothing written. */
    public static final AdvanceResult LOST = new AdvanceResult(false, List.of(), List.of());

    public AdvanceResult {
        created = List.copyOf(created);
        skippedDuplicates = List.copyOf(skippedDuplicates);
        if (!advanced && (!created.isEmpty() || !skippedDuplicates.isEmpty())) {
            throw new IllegalArgumentException("a lost advance writes nothing: " + created.size() + " created");
        }
    }
}
