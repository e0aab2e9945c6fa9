package dev.tickwheel.concurrent;

import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * Creates threads named {@code tickwheel-<role>-<n>}, n counting from 1 per factory, so that a thread dump
 * says which part of Tickwheel a thread belongs to.
 *
 * <p>Thread-safe.
 *
 * <p>Caveats: two factories with the same role produce the same names; give each pool its own role.
 */
public final class NamedThreadFactory implements ThreadFactory {

    private static final Pattern ROLE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

    private final String prefix;
    private final boolean daemon;
    /** Shared by every caller of newThread; atomic so that concurrent pool growth never reuses a number. */
    private final AtomicLong created = new AtomicLong();

    /**
     * @param role   what the threads do, e.g. {@code loader} or {@code dispatch}: letters, digits, '.', '_', '-'
     * @param daemon whether the threads are daemon threads (they do not keep the JVM alive)
     * @throws IllegalArgumentException if {@code role} is blank or has other characters
     */
    public NamedThreadFactory(String role, boolean daemon) {
        Objects.requireNonNull(role, "role");
        if (!ROLE.matcher(role).matches()) {
            throw new IllegalArgumentException(
                    "role must be letters, digits, '.', '_' or '-' (starting with a letter or digit), got '" + role + "'");
        }
        this.prefix = "tickwheel-" + role + "-";
        this.daemon = daemon;
    }

    @Override
    public Thread newThread(Runnable task) {
        Thread thread = new Thread(task, prefix + created.incrementAndGet());
        thread.setDaemon(daemon);
        return thread;
    }
}
