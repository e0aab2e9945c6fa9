package dev.tickwheel.server.access;

import java.util.regex.Pattern;

/**
 * The rules of namespace names. A namespace groups one team's jobs and their instances; {@value #DEFAULT} always
 * exists, and every job created without one is in it.
 *
 * <p>Immutable.
 */
public final class Namespaces {

    /** The namespace of a server used by one team: every job that names none. */
    public static final String DEFAULT = "default";
    /** Longest namespace name: the store's column width. */
    public static final int MAX_LENGTH = 64;

    private static final Pattern NAME = Pattern.compile("[a-z0-9]([a-z0-9-]*[a-z0-9])?");

    private Namespaces() {
    }

    /** Why {@code name} is not a valid namespace name, or null if it is. */
    public static String problem(String name) {
        if (name == null || name.isEmpty()) {
            return "must not be empty";
        }
        if (name.length() > MAX_LENGTH) {
            return "must be at most " + MAX_LENGTH + " characters, got " + name.length();
        }
        if (!NAME.matcher(name).matches()) {
            return "must be lower-case letters, digits and '-' (not first or last), got '" + name + "'";
        }
        return null;
    }

    /** {@code name}, checked. */
    public static String check(String name) {
        String problem = problem(name);
        if (problem != null) {
            throw new IllegalArgumentException("namespace " + problem);
        }
        return name;
    }
}
