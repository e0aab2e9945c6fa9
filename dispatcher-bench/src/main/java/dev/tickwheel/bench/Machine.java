package dev.tickwheel.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What the benchmarks ran on: cores, CPU model, memory, OS, JDK and VM, and the load average (other processes).
 *
 * <p>Stateless.
 */
public final class Machine {

    private Machine() {
    }

    public static String describe() {
        return describe(ChildJvm.JVM_FLAGS);
    }

    /** The machine, with the flags the benchmark's child JVMs were started with. */
    public static String describe(List<String> childJvmFlags) {
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        return "| what | value |\n| --- | --- |\n"
                + "| cores (available to the JVM) | " + Runtime.getRuntime().availableProcessors() + " |\n"
                + "| CPU | " + cpuModel() + " |\n"
                + "| memory | " + Math.round(os.getTotalMemorySize() / (1024.0 * 1024 * 1024)) + " GiB |\n"
                + "| OS | " + System.getProperty("os.name") + " " + System.getProperty("os.version") + " ("
                + System.getProperty("os.arch") + ") |\n"
                + "| JDK | " + System.getProperty("java.vendor") + " " + System.getProperty("java.runtime.version")
                + " |\n"
                + "| VM | " + System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version")
                + " |\n"
                + "| child JVM flags | `" + String.join(" ", childJvmFlags) + "` |\n";
    }

    public static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return f[0] + " / " + f[1] + " / " + f[2] + " (1 / 5 / 15 min)";
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static String cpuModel() {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/cpuinfo"));
            return lines.stream().filter(l -> l.startsWith("model name")).findFirst()
                    .map(l -> l.substring(l.indexOf(':') + 1).trim()).orElse("unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
