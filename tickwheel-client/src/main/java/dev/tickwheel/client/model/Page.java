package dev.tickwheel.client.model;

import java.util.List;

/**
 * One page of a listing, in the listing's order (jobs by name then ID, instances newest first).
 *
 * <p>Immutable.
 *
 * @param items      this page
 * @param nextCursor pass it back (as {@link JobQuery#after} or {@link InstanceQuery#after}) for the next page; null
 *                   on the last page
 * @param <T>        the item type
 */
public record Page<T>(List<T> items, String nextCursor) {

    public Page {
        items = items == null ? List.of() : List.copyOf(items);
    }

    /** Whether there is a next page. */
    public boolean hasNext() {
        return nextCursor != null;
    }
}
