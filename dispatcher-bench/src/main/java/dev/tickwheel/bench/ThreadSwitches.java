package dev.tickwheel.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Context switches of every thread of this process, from {@code /proc/self/task/<tid>/status} (Linux only): a
 * voluntary switch is a thread going to sleep, so its rate is the thread's wake-up rate.
 *
 * <p>Immutable snapshot.
 */
record ThreadSwitches(Map<Long, Long> switchesByTid, Map<Long, String> nameByTid) {

    static boolean supported() {
        return Files.isDirectory(Path.of("/proc/self/task"));
    }

    static ThreadSwitches read() {
        Map<Long, Long> switches = new HashMap<>();
        Map<Long, String> names = new HashMap<>();
        if (!supported()) {
            return new ThreadSwitches(switches, names);
        }
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    long tid = Long.parseLong(task.getFileName().toString());
                    long total = 0;
                    for (String line : Files.readAllLines(task.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:")
                                || line.startsWith("nonvoluntary_ctxt_switches:")) {
                            total += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                        }
                    }
                    switches.put(tid, total);
                    names.put(tid, Files.readString(task.resolve("comm")).trim().replace(' ', '_'));
                } catch (IOException | NumberFormatException e) {
                    // the thread exited while we read it
                }
            }
        } catch (IOException e) {
            return new ThreadSwitches(switches, names);
        }
        return new ThreadSwitches(switches, names);
    }

    /** Switches per second between {@code before} and this snapshot, summed over threads alive in both. */
    double ratePerSecond(ThreadSwitches before, double seconds) {
        long sum = 0;
        for (Map.Entry<Long, Long> e : switchesByTid.entrySet()) {
            Long old = before.switchesByTid.get(e.getKey());
            if (old != null) {
                sum += e.getValue() - old;
            }
        }
        return sum / seconds;
    }

    /** {@code name:rate} of the thread that switched most since {@code before}. */
    String busiest(ThreadSwitches before, double seconds) {
        String best = "none";
        long bestDelta = -1;
        for (Map.Entry<Long, Long> e : switchesByTid.entrySet()) {
            Long old = before.switchesByTid.get(e.getKey());
            if (old != null && e.getValue() - old > bestDelta) {
                bestDelta = e.getValue() - old;
                best = nameByTid.get(e.getKey());
            }
        }
        return best + ":" + Math.round(bestDelta / seconds);
    }
}
