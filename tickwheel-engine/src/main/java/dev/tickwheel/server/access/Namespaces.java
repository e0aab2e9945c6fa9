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
    private static final char SEPARATOR = '/';
    /** Longest local name of a calendar or pool. */
    public static final int MAX_LOCAL_NAME_LENGTH = 100;
    private static final Pattern LOCAL_NAME = Pattern.compile("[A-Za-z0-9._-]{1," + MAX_LOCAL_NAME_LENGTH + "}");

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

    /**
     * The name a calendar or pool of {@code namespace} is stored and referenced by (a job's {@code calendar} and
     * {@code pool} hold it): the local name itself in {@link #DEFAULT}, so names from before namespaces keep their
     * meaning, else {@code <namespace>/<local name>}. Unambiguous because neither a namespace nor a local name holds a
     * '/'.
     *
     * @throws IllegalArgumentException whose message starts with {@code name} if {@code localName} is not a local
     *                                  name (one holding '/' would name another namespace's)
     */
    public static String qualified(String namespace, String localName) {
        if (!isLocalName(localName)) {
            throw notALocalName(localName);
        }
        return namespace == null || DEFAULT.equals(namespace) ? localName : namespace + SEPARATOR + localName;
    }

    /**
     * Whether {@code name} is a valid local name of a calendar or pool: a name holding '/' (another namespace's
     * qualified name) is not, so no caller reaches another namespace's row by naming it.
     */
    public static boolean isLocalName(String name) {
        return name != null && LOCAL_NAME.matcher(name).matches();
    }

    /** The namespace of a {@link #qualified} name. */
    public static String namespaceOfQualified(String qualifiedName) {
        int slash = qualifiedName.indexOf(SEPARATOR);
        return slash < 0 ? DEFAULT : qualifiedName.substring(0, slash);
    }

    /** The local name of a {@link #qualified} name: what a caller of its namespace calls it; null for null. */
    public static String localName(String qualifiedName) {
        return qualifiedName == null ? null : qualifiedName.substring(qualifiedName.indexOf(SEPARATOR) + 1);
    }

    /**
     * Checks a {@link #qualified} name: a local name of 1..{@value #MAX_LOCAL_NAME_LENGTH} letters, digits, '.', '_'
     * and '-', after a valid namespace and '/' if it has one.
     *
     * @throws IllegalArgumentException whose message starts with {@code name} (or {@code namespace}) if it is not
     */
    public static void checkQualified(String qualifiedName) {
        String local = localName(qualifiedName);
        if (!isLocalName(local)) {
            throw notALocalName(local);
        }
        if (qualifiedName.indexOf(SEPARATOR) >= 0) {
            check(namespaceOfQualified(qualifiedName));
        }
    }

    private static IllegalArgumentException notALocalName(String name) {
        return new IllegalArgumentException("name must be 1.." + MAX_LOCAL_NAME_LENGTH + " letters, digits, '.', '_'"
                + " or '-': '" + name + "'");
    }

    /** Whether {@code name} is a valid {@link #qualified} name ({@link #checkQualified}). */
    public static boolean isQualified(String name) {
        if (name == null || !isLocalName(localName(name))) {
            return false;
        }
        return name.indexOf(SEPARATOR) < 0 || problem(namespaceOfQualified(name)) == null;
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
