package dev.tickwheel.server.instance;

/**
 * The rules of a caller's run key: 1 to {@value #MAX_LENGTH} printable characters (no control characters, no
 * surrogate halves, no NUL), compared exactly (case matters, nothing is trimmed). A key names one run of one job for as
 * long as that run's instance is kept: the same key again finds that instance instead of creating a second one.
 *
 * <p>Stateless; thread-safe.
 */
public final class RunKeys {

    /** Longest key, in UTF-16 characters (the store's column holds this many). */
    public static final int MAX_LENGTH = 200;
    /**
     * The prefix of the keys Tickwheel gives the instances it makes itself (a workflow's steps): a caller's key may
     * not start with it, so no caller's run can take such an instance's key first.
     */
    public static final String RESERVED_PREFIX = "tickwheel:";

    private RunKeys() {
    }

    /**
     * @throws IllegalArgumentException naming the rule and the offending character's position if {@code key} breaks
     *                                  one
     */
    public static void check(String key) {
        String why = problem(key);
        if (why != null) {
            throw new IllegalArgumentException(why);
        }
    }

    /**
     * As {@link #check}, for a key a caller gives to create a run: it may not start with {@value #RESERVED_PREFIX}.
     */
    public static void checkCaller(String key) {
        String why = callerProblem(key);
        if (why != null) {
            throw new IllegalArgumentException(why);
        }
    }

    /** Why {@code key} may not be a caller's key for a new run, or null if it may. */
    public static String callerProblem(String key) {
        String why = problem(key);
        if (why == null && key.startsWith(RESERVED_PREFIX)) {
            return "key must not start with '" + RESERVED_PREFIX + "': such keys are the instances Tickwheel makes"
                    + " itself (a workflow's steps)";
        }
        return why;
    }

    /** Why {@code key} is not a valid run key, or null if it is. */
    public static String problem(String key) {
        if (key == null || key.isEmpty()) {
            return "key must have 1.." + MAX_LENGTH + " characters, got an empty key";
        }
        if (key.length() > MAX_LENGTH) {
            return "key must have 1.." + MAX_LENGTH + " characters, got " + key.length();
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (Character.isISOControl(c) || Character.isSurrogate(c) && !validPair(key, i)) {
                return "key must be printable: character " + i + " is U+" + String.format("%04X", (int) c);
            }
            if (Character.isHighSurrogate(c)) {
                i++; // the low half of a valid pair
            }
        }
        return null;
    }

    private static boolean validPair(String key, int i) {
        return Character.isHighSurrogate(key.charAt(i)) && i + 1 < key.length()
                && Character.isLowSurrogate(key.charAt(i + 1));
    }
}
