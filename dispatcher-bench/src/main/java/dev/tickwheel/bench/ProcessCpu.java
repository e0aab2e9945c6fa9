package dev.tickwheel.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The CPU time another process has used, from Linux's {@code /proc/<pid>/stat}.
 *
 * <p>Stateless.
 */
public final class ProcessCpu {

    private static final long NANOS_PER_TICK = 10_000_000; // USER_HZ = 100

    private ProcessCpu() {
    }

    /** The CPU time (user + system) process {@code pid} has used so far, in nanoseconds; -1 if unknown. */
    public static long nanos(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
            // "pid (comm) state ppid ...": comm may hold spaces, so count fields after its closing parenthesis;
            // there, field 0 is the state (field 3 of proc(5)), so utime (14) and stime (15) are 11 and 12
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" +");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * NANOS_PER_TICK;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
