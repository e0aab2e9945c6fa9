package dev.tickwheel.client;

import com.fasterxml.jackson.databind.ObjectReader;
import java.io.IOException;
import java.util.Objects;
import java.util.Set;

/**
 * One operation as the transport sends it: method, path (with its query), JSON body, whether it is safe to repeat,
 * and how its answer is read. Made by {@link Jobs}, {@link Instances} and {@link TickwheelClient}.
 *
 * <p>Immutable.
 *
 * @param method     GET, POST, PUT or DELETE
 * @param path       the path and query under the base URI, starting with {@code /}
 * @param body       the JSON body, or null for none
 * @param repeatable whether the call may be repeated after a lost answer or a 503 (see {@link TickwheelClient})
 * @param answers    the statuses that are this call's answers; any other is an error (a 503 among them is not
 *                   retried: it is an answer, as {@code GET /health}'s DOWN)
 * @param reader     what an answer's body reads as (a reader made once per type and shared); null for a call whose
 *                   answer has no body (204)
 * @param <T>        the result type
 */
record ApiCall<T>(String method, String path, byte[] body, boolean repeatable, Set<Integer> answers,
                  ObjectReader reader) {

    ApiCall {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(path, "path");
        answers = Set.copyOf(answers);
    }

    /** Reads an answer's body; null for a call without a body type. */
    T read(byte[] answer) throws IOException {
        return reader == null ? null : reader.readValue(answer);
    }

    /** {@code GET path} answered 200, always safe to repeat. */
    static <T> ApiCall<T> get(String path, ObjectReader reader) {
        return new ApiCall<>("GET", path, null, true, Set.of(200), reader);
    }

    /** How a message names the call: {@code POST /api/jobs/1/run}. */
    String describe() {
        return method + " " + path;
    }
}
