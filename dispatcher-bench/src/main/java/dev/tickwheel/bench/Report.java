package dev.tickwheel.bench;

import dev.tickwheel.bench.peer.Peer;
import java.util.List;
import java.util.Map;

/**
 * Markdown tables of the harness results: one row per peer, {@code median (min–max)} over forks.
 *
 * <p>Stateless.
 */
public final class Report {

    private Report() {
    }

    static String row(String... cells) {
        return "| " + String.join(" | ", cells) + " |\n";
    }

    static String header(String... cells) {
        StringBuilder s = new StringBuilder(row(cells));
        s.append("|");
        for (int i = 0; i < cells.length; i++) {
            s.append(i == 0 ? " --- |" : " ---: |");
        }
        return s.append('\n').toString();
    }

    public static String latenessTable(Map<Peer, ForkResult> byPeer) {
        StringBuilder s = new StringBuilder(header("peer", "p50 ms", "p99 ms", "p99.9 ms", "max ms", "min ms",
                "early fires", "missed"));
        byPeer.forEach((peer, r) -> s.append(row("`" + peer.id() + "`",
                r.summary("p50_us").scaled(1e-3).format("%.3f"),
                r.summary("p99_us").scaled(1e-3).format("%.3f"),
                r.summary("p999_us").scaled(1e-3).format("%.3f"),
                r.summary("max_us").scaled(1e-3).format("%.3f"),
                r.summary("min_us").scaled(1e-3).format("%.3f"),
                r.summary("early").format("%.0f"),
                r.summary("missed").format("%.0f"))));
        return s.toString();
    }

    public static String idleTable(Map<Peer, ForkResult> byPeer) {
        StringBuilder s = new StringBuilder(header("peer", "Java-thread CPU ms/s, 0 pending",
                "process CPU ms/s, 0 pending", "wake-ups/s, 0 pending", "Java-thread CPU ms/s, 10⁶ pending 1 h out",
                "process CPU ms/s, 10⁶ pending", "wake-ups/s, 10⁶ pending", "busiest thread (wake-ups/s)"));
        byPeer.forEach((peer, r) -> s.append(row("`" + peer.id() + "`",
                cell(r, "empty_jthreads_cpu_ms_per_s", "%.3f"),
                cell(r, "empty_cpu_ms_per_s", "%.1f"),
                cell(r, "empty_wakeups_per_s", "%.0f"),
                cell(r, "pending_jthreads_cpu_ms_per_s", "%.3f"),
                cell(r, "pending_cpu_ms_per_s", "%.1f"),
                cell(r, "pending_wakeups_per_s", "%.0f"),
                r.note("pending_busiest") == null ? "–" : r.note("pending_busiest"))));
        return s.toString();
    }

    public static String memoryTable(Map<Peer, ForkResult> byPeer) {
        StringBuilder s = new StringBuilder(header("peer", "kind", "bytes per pending", "largest growth (bytes each)"));
        byPeer.forEach((peer, r) -> s.append(row("`" + peer.id() + "`",
                peer.kind() == Peer.Kind.TIMER ? "timer (handle)" : "instance (timer + ID map)",
                cell(r, "bytes_per_pending", "%.1f"),
                r.note("top_classes") == null ? "–" : r.note("top_classes").replace(",", ", "))));
        return s.toString();
    }

    public static String throughputTable(Map<Peer, ForkResult> byPeer, int count) {
        StringBuilder s = new StringBuilder(header("peer", "kind", "schedule, 1 producer (M ops/s)",
                "schedule, 2 producers (M ops/s)", "cancel by ID/handle, 1 thread (M ops/s)"));
        byPeer.forEach((peer, r) -> s.append(row("`" + peer.id() + "`",
                peer.kind() == Peer.Kind.TIMER ? "timer (handle)" : "instance (ID map)",
                r.summary("schedule_p1_ops").scaled(1e-6).format("%.2f"),
                r.summary("schedule_p2_ops").scaled(1e-6).format("%.2f"),
                r.summary("cancel_ops").scaled(1e-6).format("%.2f"))));
        return s.toString();
    }

    public static String scalingTable(ScalingRun.Result result) {
        List<Integer> sizes = result.sizes();
        String[] head = new String[sizes.size() + 2];
        head[0] = "peer";
        for (int i = 0; i < sizes.size(); i++) {
            head[i + 1] = "ns/op at " + pow10(sizes.get(i));
        }
        head[head.length - 1] = "largest ÷ smallest";
        StringBuilder s = new StringBuilder(header(head));
        result.nanosPerOp().forEach((peer, bySize) -> {
            String[] cells = new String[head.length];
            cells[0] = "`" + peer.id() + "`";
            for (int i = 0; i < sizes.size(); i++) {
                Summary v = bySize.get(sizes.get(i));
                cells[i + 1] = v == null ? "–" : v.format("%.0f");
            }
            Summary first = bySize.get(sizes.get(0));
            Summary last = bySize.get(sizes.get(sizes.size() - 1));
            cells[cells.length - 1] = first == null || last == null ? "–"
                    : String.format(java.util.Locale.ROOT, "%.2f×", last.median() / first.median());
            s.append(row(cells));
        });
        return s.toString();
    }

    static String pow10(int n) {
        int exp = (int) Math.round(Math.log10(n));
        String[] sup = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
        return Math.pow(10, exp) == n ? "10" + sup[exp] : Integer.toString(n);
    }

    static String cell(ForkResult r, String metric, String format) {
        return r.has(metric) ? r.summary(metric).format(format) : "–";
    }

    static List<String> ids(List<Peer> peers) {
        return peers.stream().map(Peer::id).toList();
    }
}
