package dev.tickwheel.server.store;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One page of a keyset-paged listing, and the cursor that asks for the next one: where this page ended in the
 * listing's order (for instances newest first, the id of the last one; for jobs by name, a {@link JobNameCursor}).
 *
 * <p>Immutable.
 *
 * @param items      the items of this page, in the listing's order
 * @param nextCursor where the next page starts after, or empty if this is the last page
 * @param <T>        the item type
 * @param <C>        the cursor type
 */
public record Page<T, C>(List<T> items, Optional<C> nextCursor) {

    public Page {
        items = List.copyOf(items);
        Objects.requireNonNull(nextCursor, "nextCursor");
    }

    /** True if another page follows. */
    public boolean hasMore() {
        return nextCursor.isPresent();
    }
}
