package dev.tickwheel.bench;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import javax.management.ObjectName;

/**
 * Live-object heap histogram of this JVM, taken with the {@code GC.class_histogram} diagnostic command (the same as
 * {@code jcmd <pid> GC.class_histogram}): it runs a full GC first, so only reachable objects are counted.
 *
 * <p>Immutable snapshot.
 */
public record HeapHistogram(long totalBytes, Map<String, Long> bytesByClass) {

    public static HeapHistogram take() {
        try {
            String text = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                    new Object[] {new String[0]}, new String[] {String[].class.getName()});
            return parse(text);
        } catch (Exception e) {
            throw new IllegalStateException("GC.class_histogram failed", e);
        }
    }

    static HeapHistogram parse(String text) {
        Map<String, Long> byClass = new HashMap<>();
        long total = -1;
        for (String line : text.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 3 && f[0].equals("Total")) {
                total = Long.parseLong(f[2]);
            } else if (f.length >= 4 && f[0].endsWith(":")) {
                byClass.merge(f[3], Long.parseLong(f[2]), Long::sum);
            }
        }
        if (total < 0) {
            throw new IllegalStateException("no Total line in the class histogram");
        }
        return new HeapHistogram(total, byClass);
    }

    /** The {@code n} classes that grew most since {@code before}, as {@code Class:bytesPerUnit,...}. */
    public String topGrowth(HeapHistogram before, int n, long units) {
        Map<String, Long> delta = new HashMap<>();
        bytesByClass.forEach((k, v) -> delta.put(k, v - before.bytesByClass.getOrDefault(k, 0L)));
        List<Map.Entry<String, Long>> top = delta.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(n).toList();
        return top.stream().map(e -> shortName(e.getKey()) + ":" + String.format(java.util.Locale.ROOT, "%.1f",
                (double) e.getValue() / units)).collect(Collectors.joining(","));
    }

    private static String shortName(String className) {
        int dot = className.lastIndexOf('.');
        return dot < 0 ? className : className.substring(dot + 1);
    }
}
