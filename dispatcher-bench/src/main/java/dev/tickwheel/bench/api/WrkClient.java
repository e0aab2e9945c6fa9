package dev.tickwheel.bench.api;

import dev.tickwheel.bench.ProcessCpu;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The four single calls (figures 1 to 3b) sent by <a href="https://github.com/wg/wrk">wrk</a> in a process of its
 * own: a C load generator (event loops, keep-alive connections, requests made by a small Lua script), whose CPU per
 * call is a fraction of the JVM client's, so that on a small machine the server gets the cores the JVM client would
 * take. Each figure is two invocations of
 *
 * <pre>
 * wrk -t2 -c&lt;concurrency&gt; -d&lt;seconds&gt;s --latency -s &lt;script&gt; &lt;url&gt;
 * </pre>
 *
 * the first as long as the warm-up and not reported, the second the measured window. wrk keeps {@code concurrency}
 * connections open (split over its 2 threads), each sending its next request when its answer is read: the same
 * closed loop as {@link LoadLoop}'s. From its output the figure takes {@code Requests/sec} (of every answer), the
 * {@code Non-2xx or 3xx responses} (wrk counts status 400 and above) and socket errors, and the latency distribution
 * ({@code 50%}, {@code 99%}, and the maximum). Successes per second are {@code Requests/sec × (requests − non-2xx) /
 * requests}: only 2xx answers count, the others are errors, as with the JVM client.
 *
 * <pre>
 *   figure         script             path                               per request
 *   run            api-run.lua        /api/jobs/{id}/run                 {"delayMs":D}, the same bytes every time
 *   keyed run      api-keyed-run.lua  /api/jobs/{id}/run                 {"key":"NONCE-THREAD-N","delayMs":D}
 *   cancel by id   api-cancel.lua     /api/instances/{id}/cancel         the next id of the thread's share of a file
 *   cancel by key  api-cancel.lua     /api/jobs/{id}/runs/{key}/cancel   the next key of its share of a file
 * </pre>
 *
 * The scripts are resources ({@code dispatcher-bench/src/main/resources/wrk/api-*.lua}) copied to a temporary
 * directory; each documents its environment variables. The keyed run's nonce is new for every invocation, so no key
 * repeats across invocations, and its thread index comes from {@code setup()}, so none repeats across threads. The
 * cancels' ids (or keys) are WAITING runs the caller made for this figure before its warm-up ({@link Supply}), the
 * warm-up's apart from the window's, sized at {@link #SUPPLY_PER_SECOND} per second so that they do not run out; a
 * wrk thread that runs out stops, and the result says so (compare the ids the threads took with the 2xx answers).
 *
 * <p>CPU: wrk runs under {@code stdbuf -oL} (coreutils) so that its output arrives line by line; the server's, the
 * machine's and wrk's own CPU time ({@code /proc/<pid>/stat}) are read when wrk prints {@code Running …} (its clock
 * starts) and when it prints {@code Requests/sec} (its threads have stopped); the scripts' {@code done()} waits for
 * wrk's standard input to close ({@code TW_HOLD=1}), which happens after that read, so the process is still there to
 * be read. Without stdbuf the window is the whole process and wrk's own CPU is not reported.
 *
 * <p>Each invocation's whole output goes to a file under the log directory ({@code wrk-<time>/}).
 *
 * <p>Not thread-safe: confined to the benchmark's main thread.
 */
final class WrkClient implements AutoCloseable {

    /**
     * Ids (or keys) made for a wrk cancel figure per second of its warm-up and of its window: 1.5 × 20 000/s, half as
     * much again as the fastest single call wrk has measured on the benchmark machine (about 14 000 runs/s).
     */
    static final int SUPPLY_PER_SECOND = 30_000;

    private static final Path STDBUF = Path.of("/usr/bin/stdbuf");
    private static final String RUN_SCRIPT = "api-run.lua";
    private static final String KEYED_RUN_SCRIPT = "api-keyed-run.lua";
    private static final String CANCEL_SCRIPT = "api-cancel.lua";
    private static final long EXIT_BOUND_SECONDS = 60;
    /** As {@link CpuSample}'s: a shorter window is a few clock ticks. */
    private static final long MIN_CPU_WINDOW_NANOS = 200_000_000;

    /**
     * The ids (or keys) a wrk cancel figure takes, WAITING runs made before its warm-up: the warm-up's and the
     * window's, apart, so the window cancels none the warm-up already did.
     */
    record Supply(List<String> warmUp, List<String> window) {
        Supply {
            warmUp = List.copyOf(warmUp);
            window = List.copyOf(window);
        }

        /** How many a figure needs for {@code seconds} at {@link #SUPPLY_PER_SECOND}. */
        static int size(Duration seconds) {
            return Math.toIntExact(SUPPLY_PER_SECOND * seconds.toSeconds());
        }
    }

    private final ApiLoadSettings settings;
    private final String baseUrl;
    private final long serverPid;
    private final PrintStream out;
    private final Path scripts; // a temporary directory: the scripts, and each invocation's supply file
    private final Path outputs; // under the log directory: each invocation's output
    private final boolean lineBuffered;
    private final String version;
    private int invocations; // numbers every invocation of the run: the keyed run's nonce

    private WrkClient(ApiLoadSettings settings, String baseUrl, long serverPid, PrintStream out, Path scripts,
                      Path outputs) {
        this.settings = settings;
        this.baseUrl = baseUrl;
        this.serverPid = serverPid;
        this.out = out;
        this.scripts = scripts;
        this.outputs = outputs;
        this.lineBuffered = Files.isExecutable(STDBUF);
        this.version = askVersion(settings.wrk());
    }

    /** wrk against the server at {@code baseUrl} (process {@code serverPid}), its scripts copied out. */
    static WrkClient create(ApiLoadSettings settings, String baseUrl, long serverPid, PrintStream out) {
        try {
            Path scripts = Files.createTempDirectory("tickwheel-wrk-");
            for (String name : List.of(RUN_SCRIPT, KEYED_RUN_SCRIPT, CANCEL_SCRIPT)) {
                try (InputStream in = WrkClient.class.getResourceAsStream("/wrk/" + name)) {
                    if (in == null) {
                        throw new IllegalStateException("resource /wrk/" + name + " is not on the class path");
                    }
                    Files.copy(in, scripts.resolve(name));
                }
            }
            Path outputs = settings.logDir().resolve("wrk-"
                    + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
            Files.createDirectories(outputs);
            return new WrkClient(settings, baseUrl, serverPid, out, scripts, outputs);
        } catch (IOException e) {
            throw new UncheckedIOException("could not prepare wrk's scripts", e);
        }
    }

    /**
     * wrk's threads: 2, or 1 for an odd number of connections (wrk gives each thread connections / threads, rounded
     * down, so 2 threads would open one less).
     */
    static int threads(int concurrency) {
        return concurrency % 2 == 0 ? 2 : 1;
    }

    /** E.g. {@code wrk debian/4.1.0-3+b2 [epoll]}. */
    String version() {
        return version;
    }

    /** Where each invocation's output goes. */
    Path outputs() {
        return outputs;
    }

    /** Figure 1 by wrk: runs of {@code jobId} without a key. */
    PhaseResult run(int round, long jobId) throws InterruptedException {
        return phase(Figure.RUN_WRK, round, RUN_SCRIPT, baseUrl + "/api/jobs/" + jobId + "/run",
                Map.of("TW_DELAY_MS", String.valueOf(settings.delayMs())), null);
    }

    /** Figure 2 by wrk: runs of {@code jobId}, each with a key no run had. */
    PhaseResult keyedRun(int round, long jobId) throws InterruptedException {
        return phase(Figure.RUN_KEYED_WRK, round, KEYED_RUN_SCRIPT, baseUrl + "/api/jobs/" + jobId + "/run",
                Map.of("TW_DELAY_MS", String.valueOf(settings.delayMs())), null);
    }

    /** Figure 3a by wrk: cancels of the instances whose ids {@code supply} holds. */
    PhaseResult cancelById(int round, Supply supply) throws InterruptedException {
        return phase(Figure.CANCEL_BY_ID_WRK, round, CANCEL_SCRIPT, baseUrl + "/api/instances/0/cancel",
                Map.of("TW_PATH_PREFIX", "/api/instances/", "TW_PATH_SUFFIX", "/cancel"), supply);
    }

    /** Figure 3b by wrk: cancels of {@code jobId}'s runs by the keys {@code supply} holds. */
    PhaseResult cancelByKey(int round, long jobId, Supply supply) throws InterruptedException {
        return phase(Figure.CANCEL_BY_KEY_WRK, round, CANCEL_SCRIPT, baseUrl + "/api/jobs/" + jobId + "/runs/0/cancel",
                Map.of("TW_PATH_PREFIX", "/api/jobs/" + jobId + "/runs/", "TW_PATH_SUFFIX", "/cancel"), supply);
    }

    /** A figure that could not be measured at all (its supply could not be made), with why. */
    static PhaseResult notMeasured(Figure figure, int round, String why) {
        return new PhaseResult(figure, round, 0, 0, 0, Map.of(), Map.of(), 0, 0, 0, null, why);
    }

    /** Deletes the temporary scripts and supply files (not the outputs). */
    @Override
    public void close() {
        try (Stream<Path> files = Files.walk(scripts)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            out.println("could not delete " + scripts + ": " + e.getMessage());
        }
    }

    /** The warm-up invocation (unless the warm-up is zero), then the measured one. */
    private PhaseResult phase(Figure figure, int round, String script, String url, Map<String, String> env,
                              Supply supply) throws InterruptedException {
        List<String> notes = new ArrayList<>();
        String name = figure.name().toLowerCase(Locale.ROOT);
        if (!settings.warmUp().isZero()) {
            Invocation warmUp = invoke(round, name + "-warmup", script, url, settings.warmUp(), env,
                    supply == null ? null : supply.warmUp());
            if (warmUp.failure() != null) {
                return notMeasured(figure, round, "the warm-up's wrk failed: " + warmUp.failure());
            }
            WrkOutput w = warmUp.output();
            if (w.successes() == 0 && w.errors().values().stream().mapToLong(Long::longValue).sum() > 0) {
                Map<String, Long> errors = new LinkedHashMap<>();
                w.errors().forEach((kind, n) -> errors.put(kind + " (warm-up)", n));
                return new PhaseResult(figure, round, 0, 0, 0, errors, Map.of(), 0, 0, 0, null,
                        "nothing succeeded in the warm-up: stopped there (output in " + warmUp.file() + ")");
            }
            if (supply != null && w.exhaustedThreads() > 0) {
                notes.add(String.format("the warm-up ran out of ids (%,d for it): it was short",
                        supply.warmUp().size()));
            }
        }
        Invocation window = invoke(round, name, script, url, settings.measure(), env,
                supply == null ? null : supply.window());
        if (window.failure() != null) {
            return notMeasured(figure, round, "wrk failed: " + window.failure());
        }
        WrkOutput w = window.output();
        if (supply != null) {
            notes.addAll(supplyNotes(w, supply.window().size(), window));
        }
        if (w.successes() == 0) {
            notes.add("no 2xx answer in the window (output in " + window.file() + ")");
        }
        return new PhaseResult(figure, round, w.windowNanos(), w.successes(), w.successes(), w.errors(), Map.of(),
                w.p50Us(), w.p99Us(), w.maxUs(), window.cpu(), notes.isEmpty() ? null : String.join("; ", notes));
    }

    /**
     * Compares the ids the threads took with the answers: every 2xx is one id cancelled, so 2xx + non-2xx can be at
     * most the ids sent (taken, less the one wrk's check of the script takes from thread 0 and never sends); the rest
     * were in flight when wrk stopped. Says so if a thread ran out.
     */
    private List<String> supplyNotes(WrkOutput w, int supplied, Invocation window) {
        List<String> notes = new ArrayList<>();
        if (w.shares().isEmpty()) {
            notes.add("wrk's script printed no supply lines: cannot tell whether its ids ran out (output in "
                    + window.file() + ")");
            return notes;
        }
        long taken = w.shares().stream().mapToLong(Share::taken).sum();
        long sent = Math.max(0, taken - 1);
        long answered = w.requests();
        out.printf("    wrk supply: %,d ids for the window, %,d taken, %,d answered 2xx, %,d other answers, %,d in"
                + " flight when wrk stopped%n", supplied, taken, w.successes(), answered - w.successes(),
                Math.max(0, sent - answered));
        List<Integer> ranOut = w.shares().stream().filter(Share::exhausted).map(Share::thread).toList();
        if (!ranOut.isEmpty()) {
            notes.add(String.format("ran out of ids to cancel: wrk thread %s used up its share of the %,d for the "
                    + "window and stopped, so the rate is understated", ranOut.stream().map(String::valueOf)
                    .reduce((a, b) -> a + ", " + b).orElse(""), supplied));
        }
        if (w.successes() > taken) {
            notes.add(String.format("%,d 2xx answers but only %,d ids taken: the count is wrong", w.successes(),
                    taken));
        }
        return notes;
    }

    /** What one wrk invocation gave: its output parsed, the CPU of its run, and where its output is. */
    private record Invocation(WrkOutput output, CpuSample.CpuUse cpu, Path file, String failure) {
    }

    private Invocation invoke(int round, String name, String script, String url, Duration duration,
                              Map<String, String> env, List<String> supply) throws InterruptedException {
        int number = ++invocations;
        Path file = outputs.resolve(String.format("round%d-%s.txt", round, name));
        Path supplyFile = scripts.resolve("supply-" + number + ".txt");
        List<String> command = new ArrayList<>();
        if (lineBuffered) {
            command.addAll(List.of(STDBUF.toString(), "-oL"));
        }
        int threads = threads(settings.concurrency());
        command.addAll(List.of(settings.wrk().toString(), "-t" + threads, "-c" + settings.concurrency(),
                "-d" + duration.toSeconds() + "s", "--latency", "-s", scripts.resolve(script).toString(), url));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        Map<String, String> environment = builder.environment();
        environment.putAll(env);
        environment.put("TW_THREADS", String.valueOf(threads));
        environment.put("TW_NONCE", "q" + number);
        if (lineBuffered) {
            environment.put("TW_HOLD", "1"); // done() waits for its standard input to close: see below
        }
        StringBuilder text = new StringBuilder(String.join(" ", command)).append('\n');
        env.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
        try {
            if (supply != null) {
                Files.write(supplyFile, supply, StandardCharsets.US_ASCII);
                environment.put("TW_SUPPLY", supplyFile.toString());
                text.append("TW_SUPPLY=").append(supplyFile).append(" (").append(supply.size()).append(" lines)\n");
            }
            CpuSample launched = CpuSample.take(serverPid);
            Process process = builder.start();
            if (!lineBuffered) {
                process.getOutputStream().close();
            }
            Thread watchdog = new Thread(() -> {
                try {
                    if (!process.waitFor(duration.toSeconds() + EXIT_BOUND_SECONDS, TimeUnit.SECONDS)) {
                        process.destroyForcibly();
                    }
                } catch (InterruptedException e) {
                    process.destroyForcibly();
                }
            }, "tickwheel-bench-wrk-watchdog");
            watchdog.setDaemon(true);
            watchdog.start();
            CpuSample start = null;
            CpuSample end = null;
            long wrkStart = -1;
            long wrkEnd = -1;
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    if (lineBuffered && start == null && line.startsWith("Running ")) {
                        start = CpuSample.take(serverPid);
                        wrkStart = ProcessCpu.nanos(process.pid());
                    } else if (lineBuffered && end == null && line.startsWith("Requests/sec:")) {
                        end = CpuSample.take(serverPid);
                        wrkEnd = ProcessCpu.nanos(process.pid()); // alive: its done() waits for this
                        process.getOutputStream().close();
                    }
                    text.append(line).append('\n');
                }
            } finally {
                process.destroy(); // no-op once it has ended
            }
            int exit = process.waitFor();
            if (start == null || end == null) { // no stdbuf: the whole process is the window
                start = launched;
                end = CpuSample.take(serverPid);
                wrkStart = -1;
            }
            Files.writeString(file, text.append("exit ").append(exit).append('\n'), StandardCharsets.UTF_8);
            String output = text.toString();
            WrkOutput parsed = WrkOutput.parse(output);
            if (exit != 0 || parsed == null) {
                return new Invocation(null, null, file, "exit " + exit + ", output in " + file + ": "
                        + lastLines(output, 4));
            }
            CpuSample.CpuUse use = start.until(end);
            double windowNanos = end.nanoTime() - start.nanoTime();
            double wrkCores = wrkStart < 0 || wrkEnd < 0 || windowNanos < MIN_CPU_WINDOW_NANOS ? -1
                    : (wrkEnd - wrkStart) / windowNanos;
            return new Invocation(parsed, new CpuSample.CpuUse(use.serverCores(), wrkCores,
                    use.machineBusyPercent()), file, null);
        } catch (IOException e) {
            return new Invocation(null, null, file, "could not run " + String.join(" ", command) + ": " + e);
        } finally {
            try {
                Files.deleteIfExists(supplyFile);
            } catch (IOException e) {
                // the temporary directory goes at close
            }
        }
    }

    private static String lastLines(String text, int lines) {
        String[] all = text.strip().split("\n");
        return String.join(" | ", List.of(all).subList(Math.max(0, all.length - lines), all.length));
    }

    private static String askVersion(Path wrk) {
        try {
            Process p = new ProcessBuilder(wrk.toString(), "-v").redirectErrorStream(true).start();
            String first;
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                first = r.readLine();
                while (r.readLine() != null) {
                    // drain: wrk -v prints its usage after the version
                }
            }
            p.waitFor(10, TimeUnit.SECONDS);
            if (first == null) {
                return "wrk (version unknown)";
            }
            int copyright = first.indexOf(" Copyright");
            return (copyright < 0 ? first : first.substring(0, copyright)).trim();
        } catch (IOException e) {
            return "wrk (version unknown: " + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "wrk (version unknown)";
        }
    }

    /** One wrk thread's use of its share of a supply file, as the cancel script's {@code done()} prints it. */
    record Share(int thread, long share, long taken, boolean exhausted) {
    }

    /**
     * What wrk printed, read from its text output.
     *
     * @param requests           answers read (wrk's "N requests in T"), 2xx or not
     * @param requestsPerSecond  wrk's {@code Requests/sec}: {@code requests} over its run time
     * @param non2xx             wrk's "Non-2xx or 3xx responses" (status 400 and above)
     * @param socketErrors       wrk's socket errors by kind (connect, read, write, timeout), those above 0
     * @param p50Us              the 50 % line of its latency distribution, microseconds
     * @param p99Us              the 99 % line
     * @param maxUs              the Max of its latency line
     * @param shares             the cancel script's supply lines; empty for the other scripts
     */
    record WrkOutput(long requests, double requestsPerSecond, long non2xx, Map<String, Long> socketErrors,
                     long p50Us, long p99Us, long maxUs, List<Share> shares) {

        private static final String TIME = "([0-9.]+)(us|ms|s|m|h)";
        private static final Pattern REQUESTS = Pattern.compile("^\\s*(\\d+) requests in " + TIME + ",",
                Pattern.MULTILINE);
        private static final Pattern RATE = Pattern.compile("^Requests/sec:\\s*([0-9.]+)", Pattern.MULTILINE);
        private static final Pattern NON_2XX = Pattern.compile("^\\s*Non-2xx or 3xx responses: (\\d+)",
                Pattern.MULTILINE);
        private static final Pattern SOCKET = Pattern.compile(
                "^\\s*Socket errors: connect (\\d+), read (\\d+), write (\\d+), timeout (\\d+)", Pattern.MULTILINE);
        private static final Pattern PERCENTILE = Pattern.compile("^\\s*(50|99)%\\s+" + TIME + "\\s*$",
                Pattern.MULTILINE);
        private static final Pattern LATENCY = Pattern.compile("^\\s*Latency\\s+" + TIME + "\\s+" + TIME + "\\s+"
                + TIME, Pattern.MULTILINE);
        private static final Pattern SHARE = Pattern.compile(
                "^tickwheel-supply thread=(\\d+) share=(\\d+) taken=(\\d+) exhausted=(\\d+)", Pattern.MULTILINE);

        WrkOutput {
            socketErrors = Map.copyOf(socketErrors);
            shares = List.copyOf(shares);
        }

        /** The output read, or null if it has no {@code Requests/sec} or request count (wrk failed). */
        static WrkOutput parse(String text) {
            Matcher requests = REQUESTS.matcher(text);
            Matcher rate = RATE.matcher(text);
            if (!requests.find() || !rate.find()) {
                return null;
            }
            Matcher non2xx = NON_2XX.matcher(text);
            Map<String, Long> socket = new LinkedHashMap<>();
            Matcher s = SOCKET.matcher(text);
            if (s.find()) {
                String[] kinds = {"socket connect", "socket read", "socket write", "answer after 2 s (wrk timeout)"};
                for (int i = 0; i < kinds.length; i++) {
                    long n = Long.parseLong(s.group(i + 1));
                    if (n > 0) {
                        socket.put(kinds[i], n);
                    }
                }
            }
            Map<String, Long> percentiles = new HashMap<>();
            for (Matcher p = PERCENTILE.matcher(text); p.find(); ) {
                percentiles.put(p.group(1), micros(p.group(2), p.group(3)));
            }
            Matcher latency = LATENCY.matcher(text);
            long maxUs = latency.find() ? micros(latency.group(5), latency.group(6)) : 0;
            List<Share> shares = new ArrayList<>();
            for (Matcher m = SHARE.matcher(text); m.find(); ) {
                shares.add(new Share(Integer.parseInt(m.group(1)), Long.parseLong(m.group(2)),
                        Long.parseLong(m.group(3)), !m.group(4).equals("0")));
            }
            return new WrkOutput(Long.parseLong(requests.group(1)), Double.parseDouble(rate.group(1)),
                    non2xx.find() ? Long.parseLong(non2xx.group(1)) : 0, socket,
                    percentiles.getOrDefault("50", 0L), percentiles.getOrDefault("99", 0L), maxUs, shares);
        }

        /** 2xx (and 3xx) answers: every answer wrk read but its non-2xx. */
        long successes() {
            return Math.max(0, requests - non2xx);
        }

        /** wrk's run time, from its rate and count (more digits than its printed time); 0 without answers. */
        long windowNanos() {
            return requests > 0 && requestsPerSecond > 0 ? Math.round(requests / requestsPerSecond * 1e9) : 0;
        }

        /** Non-2xx answers and socket errors, by kind. */
        Map<String, Long> errors() {
            Map<String, Long> errors = new LinkedHashMap<>();
            if (non2xx > 0) {
                errors.put("non-2xx", non2xx);
            }
            errors.putAll(socketErrors);
            return errors;
        }

        long exhaustedThreads() {
            return shares.stream().filter(Share::exhausted).count();
        }

        /** wrk's {@code format_time_us}: {@code 850.00us}, {@code 2.61ms}, {@code 1.02s}, {@code 1.50m}. */
        private static long micros(String value, String unit) {
            double v = Double.parseDouble(value);
            double us = switch (unit) {
                case "us" -> v;
                case "ms" -> v * 1e3;
                case "s" -> v * 1e6;
                case "m" -> v * 60e6;
                default -> v * 3600e6;
            };
            return Math.round(us);
        }
    }
}
