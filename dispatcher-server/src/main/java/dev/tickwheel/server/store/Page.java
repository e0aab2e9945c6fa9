package dev.tickwheel.server.store;

import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * One page of a listing ordered by id, and the cursor to ask for the next one.
 *
 * <p>Immutable.
 *
 * @param items      the items of this page, in ascending id order
 * @param nextCursor the id to pass as {@code afterId} for the next page, or empty if this is the last page
 * @param <T>        the item type
 */
public record Page<T>(List<T> items, OptionalLong nextCursor) {

    public Page {
        items = List.copyOf(items);
        Objects.requireNonNull(nextCursor, "nextCursor");
    }

    /** True if another page follows. */
    public boolean hasMore() {
        return nextCursor.isPresent();
    }
}
