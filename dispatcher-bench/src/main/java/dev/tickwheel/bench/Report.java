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
        StringBuilder s = new StringBuilder(header("peer", "CPU ms/s, 0 pending", "wake-ups/s, 0 pending",
                "CPU ms/s, 10⁶ pending 1 h out", "wake-ups/s, 10⁶ pending", "busiest thread (wake-ups/s)"));
        byPeer.forEach((peer, r) -> s.append(row("`" + peer.id() + "`",
                cell(r, "empty_cpu_ms_per_s", "%.2f"),
                cell(r, "empty_wakeups_per_s", "%.0f"),
                cell(r, "pending_cpu_ms_per_s", "%.2f"),
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

    static String cell(ForkResult r, String metric, String format) {
        return r.has(metric) ? r.summary(metric).format(format) : "–";
    }

    static List<String> ids(List<Peer> peers) {
        return peers.stream().map(Peer::id).toList();
    }
}
