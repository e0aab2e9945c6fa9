package dev.tickwheel.bench.api;

import dev.tickwheel.bench.Machine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The Markdown "Results" section of docs/api-benchmark.md: when, how and on what it ran, one table of the six API
 * figures (median and min–max over the rounds, target, whether it was met, the ceiling it compares with and the
 * ratio to it, latency), one of the ceilings, each round's values, and every error and short window with its first
 * example. {@link #writeInto} puts the section into the document in place of the previous one.
 *
 * <p>Medians and ranges are over the rounds that measured a rate (nearest rank: the middle of 3, the lower middle
 * of an even count); latencies are the median over the rounds of each round's nearest-rank percentile.
 *
 * <p>Immutable; stateless apart from what it reports.
 */
final class ApiLoadReport {

    static final String HEADING = "## Results";

    /**
     * What a run knew besides its results.
     *
     * @param date          when it ran (ISO date)
     * @param command       how it was started
     * @param server        how the server was started (flags and jar)
     * @param clients       the clients that sent the calls
     * @param postgres      the database's version and settings
     * @param keyColumn     whether the server's schema had {@code tw_instance.run_key}
     * @param loadAverages  the machine's load average after each round
     * @param durationS     how long the whole run took
     * @param failure       why the rounds stopped early, or null if every round ran
     */
    record RunFacts(String date, String command, String server, String clients, String postgres, boolean keyColumn,
                    List<String> loadAverages, long durationS, String failure) {
    }

    private final ApiLoadSettings settings;
    private final RunFacts facts;
    private final Map<Figure, List<PhaseResult>> results;

    ApiLoadReport(ApiLoadSettings settings, RunFacts facts, Map<Figure, List<PhaseResult>> results) {
        this.settings = settings;
        this.facts = facts;
        this.results = results;
    }

    /** The whole section, from its heading. */
    String section() {
        StringBuilder s = new StringBuilder(HEADING).append("\n\n");
        s.append("Run on ").append(facts.date()).append(", ").append(settings.rounds())
                .append(settings.rounds() == 1 ? " round of " : " rounds of ")
                .append(settings.warmUp().toSeconds()).append(" s warm-up + ").append(settings.measure().toSeconds())
                .append(" s measured per figure, ").append(settings.concurrency()).append(" requests in flight (")
                .append(settings.concurrency()).append(" JDBC threads for the ceilings)");
        if (settings.measures(ApiLoadSettings.Part.API) && !settings.serverWarmUp().isZero()) {
            s.append(", after ").append(settings.serverWarmUp().toSeconds())
                    .append(" s of untimed single calls before round 1 (the server's JIT warm-up)");
        }
        s.append("; the whole run took ").append(facts.durationS()).append(" s.\n\n");
        s.append("```\n").append(facts.command()).append("\n```\n\n");
        if (facts.failure() != null) {
            s.append("**The run stopped early** (the tables hold what was measured until then): ")
                    .append(facts.failure().replace('\n', ' ')).append("\n\n");
        }
        s.append("Server: `").append(facts.server()).append("`, its own process. Clients: ").append(facts.clients())
                .append(". ").append(facts.postgres()).append(" on 127.0.0.1, a fresh schema.");
        if (!facts.keyColumn()) {
            s.append(" **The server's schema had no `tw_instance.run_key`** (before the run-key migration): the plain"
                    + " ceilings inserted without the column and the keyed ones could not run.");
        }
        s.append("\nLoad average after each round: ").append(String.join("; ", facts.loadAverages())).append(".\n\n");
        s.append(Machine.describe(ApiLoadSettings.SERVER_FLAGS).replace("child JVM flags", "server JVM flags"))
                .append('\n');
        if (settings.measures(ApiLoadSettings.Part.API)) {
            s.append(apiTable()).append('\n');
        }
        if (settings.measures(ApiLoadSettings.Part.CEILING)) {
            s.append(ceilingTable()).append('\n');
        }
        s.append(roundsTable()).append('\n');
        s.append(legend()).append('\n');
        String problems = problems();
        if (!problems.isEmpty()) {
            s.append(problems).append('\n');
        }
        return s.toString();
    }

    /** The API figures this run measured (each single call once per client) against their targets and ceilings. */
    String apiTable() {
        StringBuilder s = new StringBuilder("| figure | median | min–max | target | met | ceiling (5) | ratio to"
                + " ceiling | latency p50 / p99 µs | CPU cores (µs per item) server / client (JVM client or wrk),"
                + " machine busy | errors |\n"
                + "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
        for (Figure f : Figure.values()) {
            if (!f.api() || !settings.measures(f)) {
                continue;
            }
            Stats stats = stats(f);
            Stats ceiling = stats(f.ceiling());
            s.append("| ").append(f.title(settings)).append(" | ").append(stats.median())
                    .append(stats.rates.length == 0 ? "" : " " + f.unit())
                    .append(" | ").append(stats.range()).append(" | ").append(target(f)).append(" | ")
                    .append(met(f, stats)).append(" | ").append(ceiling.median())
                    .append(ceiling.rates.length == 0 ? "" : " rows/s").append(" (").append(f.ceiling().title(settings))
                    .append(") | ").append(ratio(stats, ceiling)).append(" | ")
                    .append(stats.latency()).append(" | ").append(stats.cpu(true)).append(" | ").append(stats.errors())
                    .append(" |\n");
        }
        return s.toString();
    }

    /** The JDBC ceilings. */
    String ceilingTable() {
        StringBuilder s = new StringBuilder("| ceiling (bare JDBC, same database) | median | min–max | transaction"
                + " p50 / p99 µs | CPU cores (µs per row) JDBC client, machine busy | errors |\n"
                + "| --- | --- | --- | --- | --- | --- |\n");
        for (Figure f : Figure.values()) {
            if (f.api()) {
                continue;
            }
            Stats stats = stats(f);
            s.append("| ").append(f.title(settings)).append(" | ").append(stats.median())
                    .append(stats.rates.length == 0 ? " | " : " rows/s | ")
                    .append(stats.range()).append(" | ").append(stats.latency()).append(" | ").append(stats.cpu(false))
                    .append(" | ").append(stats.errors()).append(" |\n");
        }
        return s.toString();
    }

    private String roundsTable() {
        StringBuilder s = new StringBuilder("Each round (items per second; `—`: no rate, see below):\n\n| figure |");
        for (int r = 1; r <= settings.rounds(); r++) {
            s.append(" round ").append(r).append(" |");
        }
        s.append("\n| --- |").append(" --- |".repeat(settings.rounds())).append('\n');
        for (Map.Entry<Figure, List<PhaseResult>> e : results.entrySet()) {
            s.append("| ").append(e.getKey().title(settings)).append(" |");
            for (PhaseResult r : e.getValue()) {
                s.append(' ').append(r.valid() ? number(r.itemsPerSecond()) : "—").append(" |");
            }
            s.append('\n');
        }
        return s.toString();
    }

    private String legend() {
        StringBuilder s = new StringBuilder("What each figure measures:\n\n");
        for (Figure f : results.keySet()) {
            s.append("- **").append(f.title(settings)).append("**: ").append(f.measures(settings)).append(".\n");
        }
        return s.toString();
    }

    private String problems() {
        StringBuilder s = new StringBuilder();
        for (List<PhaseResult> rounds : results.values()) {
            for (PhaseResult r : rounds) {
                if (r.errorCount() == 0 && r.note() == null && r.errorExamples().isEmpty()) {
                    continue;
                }
                s.append("- ").append(r.figure().title(settings)).append(", round ").append(r.round()).append(": ");
                s.append(r.errorCount() == 0 ? "no error in the window" : "errors " + r.errorText());
                if (r.note() != null) {
                    s.append("; ").append(r.note());
                }
                r.errorExamples().forEach((kind, example) -> s.append("; first `").append(kind).append("`: `")
                        .append(example.replace('`', '\'').replace('\n', ' ')).append('`'));
                s.append('\n');
            }
        }
        return s.isEmpty() ? "" : "Errors and short windows:\n\n" + s;
    }

    /**
     * Puts {@code section} into the Markdown file {@code out}: in place of its "## Results" section (up to the next
     * second-level heading) if it has one, else at its end; a missing file is created with a title.
     */
    static void writeInto(Path out, String section) {
        try {
            String doc = Files.isRegularFile(out) ? Files.readString(out, StandardCharsets.UTF_8)
                    : "# HTTP API benchmark\n\nSee `dev.tickwheel.bench.api.ApiLoadBenchmark` for the method.\n\n";
            int start = doc.startsWith(HEADING + "\n") ? 0 : doc.indexOf("\n" + HEADING + "\n") + 1; // 0: none
            String updated;
            if (start == 0 && !doc.startsWith(HEADING + "\n")) {
                updated = doc + (doc.endsWith("\n\n") ? "" : doc.endsWith("\n") ? "\n" : "\n\n") + section;
            } else {
                int next = doc.indexOf("\n## ", start + HEADING.length()); // a "### " heading stays inside
                updated = doc.substring(0, start) + section + (next < 0 ? "" : doc.substring(next + 1));
            }
            if (out.toAbsolutePath().getParent() != null) {
                Files.createDirectories(out.toAbsolutePath().getParent());
            }
            Files.writeString(out, updated, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + out, e);
        }
    }

    private String target(Figure f) {
        String rate = "≥ " + number(f.targetPerSecond()) + "/s";
        return f.targetP99Us() == 0 ? rate : rate + ", p99 ≤ " + f.targetP99Us() / 1_000 + " ms";
    }

    private static String met(Figure f, Stats stats) {
        if (stats.rates.length == 0) {
            return "no";
        }
        boolean rate = stats.medianRate() >= f.targetPerSecond();
        boolean latency = f.targetP99Us() == 0 || stats.medianOf(stats.p99Us) <= f.targetP99Us();
        return rate && latency ? "**yes**" : "no";
    }

    private static String ratio(Stats api, Stats ceiling) {
        if (api.rates.length == 0 || ceiling.rates.length == 0 || ceiling.medianRate() <= 0) {
            return "—";
        }
        return String.format("%.2f", api.medianRate() / ceiling.medianRate());
    }

    private Stats stats(Figure f) {
        return new Stats(results.getOrDefault(f, List.of()));
    }

    static String number(double value) {
        return String.format("%,d", Math.round(value)).replace(',', ' ');
    }

    /** A figure's rounds: rates and latencies of those that measured a rate, errors of all. */
    private static final class Stats {

        final double[] rates;
        final long[] p50Us;
        final long[] p99Us;
        final long errorCount;
        final double[] serverCores;
        final double[] clientCores;
        final double[] machineBusyPercent;

        Stats(List<PhaseResult> rounds) {
            List<PhaseResult> valid = new ArrayList<>(rounds.stream().filter(PhaseResult::valid).toList());
            rates = valid.stream().mapToDouble(PhaseResult::itemsPerSecond).sorted().toArray();
            p50Us = valid.stream().mapToLong(PhaseResult::p50Us).sorted().toArray();
            p99Us = valid.stream().mapToLong(PhaseResult::p99Us).sorted().toArray();
            errorCount = rounds.stream().mapToLong(PhaseResult::errorCount).sum();
            List<CpuSample.CpuUse> cpu = valid.stream().map(PhaseResult::cpu).filter(c -> c != null).toList();
            serverCores = cpu.stream().mapToDouble(CpuSample.CpuUse::serverCores).filter(c -> c >= 0).sorted()
                    .toArray();
            clientCores = cpu.stream().mapToDouble(CpuSample.CpuUse::clientCores).filter(c -> c >= 0).sorted()
                    .toArray();
            machineBusyPercent = cpu.stream().mapToDouble(CpuSample.CpuUse::machineBusyPercent).filter(c -> c >= 0)
                    .sorted().toArray();
        }

        /**
         * Median cores of the server (if {@code withServer}) and the client, each with its CPU time per item at the
         * median rate, and the machine's median busy share: {@code 1.12 (222) / 0.54 (107), 100 %}.
         */
        String cpu(boolean withServer) {
            String cores = (withServer ? perItem(serverCores) + " / " : "") + perItem(clientCores);
            return cores + ", " + median(machineBusyPercent, "%.0f") + " %";
        }

        private String perItem(double[] sortedCores) {
            if (sortedCores.length == 0 || rates.length == 0) {
                return "?";
            }
            double cores = sortedCores[(sortedCores.length + 1) / 2 - 1];
            return String.format("%.2f (%s)", cores, number(cores * 1e6 / medianRate()));
        }

        private static String median(double[] sorted, String format) {
            return sorted.length == 0 ? "?" : String.format(format, sorted[(sorted.length + 1) / 2 - 1]);
        }

        double medianRate() {
            return rates[(rates.length + 1) / 2 - 1];
        }

        long medianOf(long[] sorted) {
            return sorted[(sorted.length + 1) / 2 - 1];
        }

        String median() {
            return rates.length == 0 ? "—" : "**" + number(medianRate()) + "**";
        }

        String range() {
            return rates.length == 0 ? "—" : number(rates[0]) + "–" + number(rates[rates.length - 1]);
        }

        String latency() {
            return p50Us.length == 0 ? "—" : number(medianOf(p50Us)) + " / " + number(medianOf(p99Us));
        }

        String errors() {
            return number(errorCount);
        }
    }
}
