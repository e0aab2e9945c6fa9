package dev.tickwheel.server;

import java.util.Objects;

/**
 * A job's URL (its webhook target or its alert URL) that the outbound guard refuses: the URL's literal address, or
 * an address its name resolves to now, is in a refused range and not allowed. Nothing is written. The HTTP API
 * answers 400 {@code invalid_target} naming {@link #field()}.
 *
 * <p>Immutable.
 */
public final class RefusedTargetException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String field;

    /**
     * @param field   the refused URL's field as the API names it: {@code target.url} or {@code alertUrl}
     * @param message the guard's refusal, naming the address, the host and the range
     */
    RefusedTargetException(String field, String message) {
        super("field '" + field + "': " + message);
        this.field = Objects.requireNonNull(field, "field");
    }

    /** {@code target.url} or {@code alertUrl}. */
    public String field() {
        return field;
    }
}
