package dev.tickwheel.server.api.dto;

import java.util.List;

/**
 * One page of a listing, in the listing's order (jobs by name, instances newest first).
 *
 * <p>Immutable.
 *
 * @param items      this page
 * @param nextCursor pass as {@code cursor} to get the next page (an opaque string); null on the last page
 * @param <T>        the item type
 */
public record PageResponse<T>(List<T> items, String nextCursor) {
}
