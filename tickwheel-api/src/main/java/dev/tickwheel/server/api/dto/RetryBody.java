package dev.tickwheel.server.api.dto;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * Retry policy on the wire: a curve ({@code backoffMs}, {@code multiplier}, {@code maxBackoffMs}) or a list of
 * delays ({@code delaysMs}), either with {@code jitter}. Answers leave out the fields of the other form.
 *
 * <p>Immutable.
 *
 * @param maxAttempts  attempts including the first, 1..100 (default 1: no retry)
 * @param backoffMs    the wait after the first failed attempt in milliseconds, 0..86 400 000 (default 0)
 * @param multiplier   the wait's growth after each further failed attempt, 1..100 (default 1: a fixed wait)
 * @param maxBackoffMs the longest wait of the curve, backoffMs..86 400 000 (default 86 400 000)
 * @param jitter       NONE, FULL or EQUAL (default NONE)
 * @param delaysMs     the waits after the first, second, ... failed attempt, the last repeated; instead of the curve
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RetryBody(Integer maxAttempts, Long backoffMs, Double multiplier, Long maxBackoffMs, String jitter,
        List<Long> delaysMs) {

    /** A fixed wait, as the API had before curves. */
    public RetryBody(Integer maxAttempts, Long backoffMs) {
        this(maxAttempts, backoffMs, null, null, null, null);
    }
}
