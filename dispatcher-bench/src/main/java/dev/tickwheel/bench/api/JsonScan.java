package dev.tickwheel.bench.api;

import java.util.Arrays;

/**
 * Reads the few values the benchmark needs out of the server's JSON answers by scanning the text for a field's name,
 * wherever it is nested: the instance ids of a run or of a batch of runs ({@code "instanceId": "383388288569835520"},
 * a string or a number), how many runs of a batch say {@code "created": true} and how many results of a batch
 * cancel say {@code "outcome": "CANCELLED"}.
 *
 * <p>Why not Jackson: the client shares the machine's cores with the server and PostgreSQL, and a tree of 1 000 runs
 * per answer would be client work inside the measured latency. A scan costs a pass over the text and does not depend
 * on the answer's shape (a list under {@code runs}, {@code items} or {@code results} reads the same). It does not
 * handle escaped quotes in names, which the server's field names never have, and a literal is matched by its
 * start ({@code "true"} also matches {@code "trueish"}, which JSON has no room for).
 *
 * <p>Stateless.
 */
final class JsonScan {

    private JsonScan() {
    }

    /** Every whole-number value (quoted or not) of a field named {@code field}, in order; empty if none. */
    static long[] numbers(String json, String field) {
        long[] out = new long[4];
        int n = 0;
        String name = '"' + field + '"';
        for (int at = json.indexOf(name); at >= 0; at = json.indexOf(name, at + name.length())) {
            int i = valueStart(json, at + name.length());
            if (i < 0) {
                continue;
            }
            if (i < json.length() && json.charAt(i) == '"') {
                i++;
            }
            long value = 0;
            int digits = 0;
            while (i < json.length() && Character.isDigit(json.charAt(i)) && digits < 19) {
                value = value * 10 + (json.charAt(i++) - '0');
                digits++;
            }
            if (digits > 0) {
                if (n == out.length) {
                    out = Arrays.copyOf(out, n * 2);
                }
                out[n++] = value;
            }
        }
        return Arrays.copyOf(out, n);
    }

    /**
     * How many fields named {@code field} have the value {@code literal}, as JSON writes it: {@code "\"CANCELLED\""}
     * for a string, {@code "true"} for a boolean.
     */
    static int count(String json, String field, String literal) {
        int n = 0;
        String name = '"' + field + '"';
        for (int at = json.indexOf(name); at >= 0; at = json.indexOf(name, at + name.length())) {
            int i = valueStart(json, at + name.length());
            if (i >= 0 && json.startsWith(literal, i)) {
                n++;
            }
        }
        return n;
    }

    /** Whether a field named {@code field} occurs (as a name, not as a string value). */
    static boolean has(String json, String field) {
        String name = '"' + field + '"';
        for (int at = json.indexOf(name); at >= 0; at = json.indexOf(name, at + name.length())) {
            if (valueStart(json, at + name.length()) >= 0) {
                return true;
            }
        }
        return false;
    }

    /** Where the value after the name ending before {@code i} starts, or -1 if no colon follows (a string value). */
    private static int valueStart(String json, int i) {
        i = skipBlanks(json, i);
        if (i >= json.length() || json.charAt(i) != ':') {
            return -1;
        }
        return skipBlanks(json, i + 1);
    }

    private static int skipBlanks(String json, int i) {
        while (i < json.length() && Character.isWhitespace(json.charAt(i))) {
            i++;
        }
        return i;
    }
}
