package dev.tickwheel.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.bench.peer.Contender;
import dev.tickwheel.bench.peer.NoopTask;
import dev.tickwheel.bench.peer.Peer;
import org.junit.jupiter.api.Test;

/** Fast checks of the harness arithmetic and of every peer adapter; no benchmark runs here (under a few seconds). */
class HarnessPartsTest {

    @Test
    void summary_oddAndEvenCounts_giveMedianAndRange() {
        assertEquals(new Summary(2, 1, 9, 3), Summary.of(9, 1, 2));
        assertEquals(new Summary(2.5, 1, 9, 4), Summary.of(9, 1, 2, 3));
        assertEquals("2.50 (1.00–9.00)", Summary.of(9, 1, 2, 3).format("%.2f"));
    }

    @Test
    void percentile_nearestRank() {
        long[] sorted = {-5, 1, 2, 3, 4, 5, 6, 7, 8, 100};
        assertEquals(4, Summary.percentile(sorted, 50)); // rank ceil(0.5 × 10) = 5, the 5th value
        assertEquals(100, Summary.percentile(sorted, 99));
        assertEquals(-5, Summary.percentile(sorted, 0));
    }

    @Test
    void heapHistogram_parsesJcmdOutput() {
        String text = """
                 num     #instances         #bytes  class name (module)
                -------------------------------------------------------
                   1:       1000000       40000000  dev.tickwheel.timer.WheelTimeout
                   2:          1234          56789  [B (java.base@17.0.15)
                Total       1001234       40056789
                """;
        HeapHistogram h = HeapHistogram.parse(text);
        assertEquals(40_056_789L, h.totalBytes());
        assertEquals(40_000_000L, h.bytesByClass().get("dev.tickwheel.timer.WheelTimeout"));
        HeapHistogram empty = HeapHistogram.parse("Total 0 0\n");
        assertTrue(h.topGrowth(empty, 1, 1_000_000).startsWith("WheelTimeout:40.0"));
    }

    @Test
    void options_quickDefaultsToOneFork_unknownOptionIsNamed() {
        assertEquals(1, BenchOptions.parse("--quick").forks());
        assertEquals(3, BenchOptions.parse().forks());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BenchOptions.parse("--fast"));
        assertTrue(e.getMessage().contains("--fast"));
    }

    @Test
    void everyPeer_schedulesAndCancelsById() {
        for (Peer peer : Peer.all()) {
            try (Contender contender = peer.create(4)) {
                contender.schedule(3, 60_000, NoopTask.INSTANCE);
                assertTrue(contender.cancel(3), peer.id());
            }
        }
    }
}
