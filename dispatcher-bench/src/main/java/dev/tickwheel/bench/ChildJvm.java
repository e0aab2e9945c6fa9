package dev.tickwheel.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs one measurement in a fresh JVM with this JVM's class path, and reads back its result.
 *
 * <p>The child prints one line {@code RESULT key=value key=value ...} (see {@link #emit}); everything else it prints
 * is passed through. Each peer is measured in its own JVMs so that JIT profiles, heap and threads of one peer never
 * touch another's numbers.
 *
 * <p>Thread-safe (stateless).
 */
public final class ChildJvm {

    /** Every child gets the same flags; -Xmx is generous so that 10^6-timer runs never collect under pressure. */
    public static final List<String> JVM_FLAGS = List.of(
            "-Xms1g", "-Xmx8g", "-XX:+UseG1GC",
            "-Djava.awt.headless=true",
            // PowerJobService resets its ConcurrentHashMap to a fresh JVM's table (powerjob-service-fresh).
            "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
            "-Dlogback.configurationFile=tickwheel-bench-logback.xml");

    private static final String PREFIX = "RESULT ";

    private ChildJvm() {
    }

    /** Prints the result line a parent parses. Values must not contain spaces. */
    public static void emit(Map<String, ?> result) {
        StringBuilder line = new StringBuilder(PREFIX);
        result.forEach((k, v) -> line.append(k).append('=').append(v).append(' '));
        System.out.println(line.toString().trim());
        System.out.flush();
    }

    /**
     * Runs {@code main} with {@code args} in a child JVM and returns its result.
     *
     * @throws IllegalStateException if the child fails, times out or prints no result
     */
    public static Map<String, String> run(Class<?> main, List<String> args, Duration timeout) {
        return run(main, JVM_FLAGS, args, timeout);
    }

    /**
     * Runs {@code main} with {@code args} in a child JVM started with {@code jvmFlags} instead of {@link #JVM_FLAGS},
     * and returns its result.
     *
     * @throws IllegalStateException if the child fails, times out or prints no result
     */
    public static Map<String, String> run(Class<?> main, List<String> jvmFlags, List<String> args,
                                          Duration timeout) {
        ProcessBuilder builder = new ProcessBuilder(command(main, jvmFlags, args))
                .redirectError(ProcessBuilder.Redirect.INHERIT);
        Map<String, String> result = new LinkedHashMap<>();
        try {
            Process process = builder.start();
            Thread reader = new Thread(() -> readResult(process, result), "tickwheel-bench-child-reader");
            reader.start();
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("child timed out after " + timeout + ": " + main.getSimpleName()
                        + " " + args);
            }
            reader.join();
            if (process.exitValue() != 0 || result.isEmpty()) {
                throw new IllegalStateException("child failed (exit " + process.exitValue() + "): "
                        + main.getSimpleName() + " " + args);
            }
            return result;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a child JVM", e);
        }
    }

    /**
     * The command line of a child JVM: this JVM's {@code java}, {@code jvmFlags}, this JVM's class path, {@code main}
     * and {@code args}. (Server processes are started by dispatcher-test-fixtures' {@code ServerLaunch}.)
     */
    private static List<String> command(Class<?> main, List<String> jvmFlags, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmFlags);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(args);
        return command;
    }

    private static void readResult(Process process, Map<String, String> result) {
        try (BufferedReader out = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith(PREFIX)) {
                    for (String pair : line.substring(PREFIX.length()).trim().split(" +")) {
                        int eq = pair.indexOf('=');
                        if (eq > 0) {
                            // published to run() by reader.join()
                            result.put(pair.substring(0, eq), pair.substring(eq + 1));
                        }
                    }
                } else {
                    System.out.println("    " + line);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
