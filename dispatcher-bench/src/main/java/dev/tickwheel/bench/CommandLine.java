package dev.tickwheel.bench;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A benchmark's {@code --name value} options: every name checked against the ones the program knows, later
 * occurrences winning, and typed reads whose errors name the option and the bad value
 * ({@code "--kills needs a whole number: many"}). The one option reader the harness programs share, so that each
 * states only its names and defaults.
 *
 * <pre>{@code
 * CommandLine line = CommandLine.parse(args, Set.of("--runs", "--pg-url"));
 * int runs = line.integer("--runs", 3);
 * }</pre>
 *
 * <p>Immutable.
 */
public final class CommandLine {

    private final Map<String, String> values;

    private CommandLine(Map<String, String> values) {
        this.values = Collections.unmodifiableMap(values);
    }

    /**
     * Reads {@code --name value} pairs.
     *
     * @throws IllegalArgumentException for a name not in {@code known} (the message lists the known ones) or a name
     *                                  without a value
     */
    public static CommandLine parse(String[] args, Set<String> known) {
        Map<String, String> values = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            if (!known.contains(name)) {
                throw new IllegalArgumentException("unknown option: " + name + " (known: "
                        + String.join(", ", known.stream().sorted().toList()) + ")");
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("option " + name + " needs a value");
            }
            values.put(name, args[++i]);
        }
        return new CommandLine(values);
    }

    /** Options already split into names and values (e.g. a settings record's own), each name checked. */
    public static CommandLine of(Map<String, String> values, Set<String> known) {
        for (String name : values.keySet()) {
            if (!known.contains(name)) {
                throw new IllegalArgumentException("unknown option: " + name);
            }
        }
        return new CommandLine(new LinkedHashMap<>(values));
    }

    public boolean has(String name) {
        return values.containsKey(name);
    }

    public String text(String name, String otherwise) {
        return values.getOrDefault(name, otherwise);
    }

    /** @throws IllegalArgumentException naming the option if the value is not a whole number or not an int */
    public int integer(String name, int otherwise) {
        long value = number(name, otherwise);
        if (value != (int) value) {
            throw new IllegalArgumentException(name + " is out of range: " + value);
        }
        return (int) value;
    }

    /** @throws IllegalArgumentException naming the option if the value is not a whole number */
    public long number(String name, long otherwise) {
        String value = values.get(name);
        if (value == null) {
            return otherwise;
        }
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " needs a whole number: " + value, e);
        }
    }

    /** A comma-separated list, blanks trimmed, empty items dropped. */
    public List<String> list(String name, List<String> otherwise) {
        String value = values.get(name);
        if (value == null) {
            return otherwise;
        }
        return Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }

    /** The options given, in order, with their values. */
    public Map<String, String> values() {
        return values;
    }
}
