package dev.tickwheel.bench.api;

import dev.tickwheel.bench.ProcessCpu;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time used so far by the server process, by this (the client's) JVM and by the whole machine, read at the two
 * ends of a measured window so that a phase can say where its cores went: a figure limited by the server's CPU, by
 * the client's, or by a machine that was busy with something else looks different here.
 *
 * <p>The server's time comes from {@code /proc/<pid>/stat} (user + system, in clock ticks of 10 ms: Linux's
 * {@code USER_HZ} is 100), the client's from the JVM ({@code getProcessCpuTime}, nanoseconds), the machine's from the
 * first line of {@code /proc/stat} (busy = every tick but idle and iowait). Where {@code /proc} cannot be read
 * (not Linux) the values are -1 and the report shows none.
 *
 * <p>Immutable.
 *
 * @param nanoTime          when it was taken ({@link System#nanoTime()})
 * @param serverCpuNanos    the server process's CPU time so far; -1 if unknown
 * @param clientCpuNanos    this JVM's CPU time so far; -1 if unknown
 * @param machineBusyTicks  the machine's busy CPU ticks so far, all cores; -1 if unknown
 * @param machineTotalTicks the machine's CPU ticks so far, all cores; -1 if unknown
 */
record CpuSample(long nanoTime, long serverCpuNanos, long clientCpuNanos, long machineBusyTicks,
                 long machineTotalTicks) {

    private static final long NANOS_PER_TICK = 10_000_000; // USER_HZ = 100
    /** Shorter windows are a few clock ticks: no share of them means anything. */
    private static final long MIN_WINDOW_NANOS = 200_000_000;

    /**
     * What a window used, in cores (1.0 = one core busy for the whole window) and as a share of the machine.
     *
     * <p>Immutable.
     *
     * @param serverCores         the server process; negative if unknown
     * @param clientCores         this JVM: the HTTP client, or the JDBC ceiling's threads; negative if unknown
     * @param machineBusyPercent  every process on the machine, PostgreSQL's and other people's included; negative if
     *                            unknown
     */
    record CpuUse(double serverCores, double clientCores, double machineBusyPercent) {

        /** E.g. {@code server 1.21, client 0.45 cores, machine 93 % busy}. */
        String text() {
            return "server " + cores(serverCores) + ", client " + cores(clientCores) + " cores, machine "
                    + (machineBusyPercent < 0 ? "?" : String.format("%.0f", machineBusyPercent)) + " % busy";
        }

        private static String cores(double cores) {
            return cores < 0 ? "?" : String.format("%.2f", cores);
        }
    }

    /** A sample now, of the server process {@code serverPid}. */
    static CpuSample take(long serverPid) {
        long[] machine = machineTicks();
        return new CpuSample(System.nanoTime(), ProcessCpu.nanos(serverPid), jvmCpuNanos(), machine[0],
                machine[1]);
    }

    /** What was used between this sample and {@code later}. */
    CpuUse until(CpuSample later) {
        double windowNanos = later.nanoTime - nanoTime;
        if (windowNanos < MIN_WINDOW_NANOS) {
            return new CpuUse(-1, -1, -1);
        }
        double serverCores = serverCpuNanos < 0 || later.serverCpuNanos < 0 ? -1
                : (later.serverCpuNanos - serverCpuNanos) / windowNanos;
        double clientCores = clientCpuNanos < 0 || later.clientCpuNanos < 0 ? -1
                : (later.clientCpuNanos - clientCpuNanos) / windowNanos;
        long totalTicks = later.machineTotalTicks - machineTotalTicks;
        double busyPercent = machineTotalTicks < 0 || totalTicks <= 0 ? -1
                : 100.0 * (later.machineBusyTicks - machineBusyTicks) / totalTicks;
        return new CpuUse(serverCores, clientCores, busyPercent);
    }

    private static long jvmCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    /** {busy, total} ticks of every core so far, or {-1, -1}. */
    private static long[] machineTicks() {
        try {
            String line = Files.readAllLines(Path.of("/proc/stat")).get(0); // "cpu  user nice system idle iowait ..."
            String[] f = line.trim().split(" +");
            long total = 0;
            for (int i = 1; i <= 8 && i < f.length; i++) { // user .. steal; guest time is already inside user
                total += Long.parseLong(f[i]);
            }
            long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]);
            return new long[] {total - idle, total};
        } catch (IOException | RuntimeException e) {
            return new long[] {-1, -1};
        }
    }
}
