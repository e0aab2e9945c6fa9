package dev.tickwheel.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.bench.webhook.TestPostgres;
import dev.tickwheel.fixtures.lanes.ProcessLane;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the cluster benchmark at a tiny size ({@link ClusterSettings#tiny}) on the test PostgreSQL, with real server
 * processes, so that CI catches a broken harness or a cluster that loses instances: three members, one {@code kill -9}
 * under a stream of runs, then 2 000 instances on one member. About a minute; the member logs go to a temporary
 * directory.
 */
@ProcessLane
class ClusterBenchmarkSmokeTest {

    /** A take-over slower than this on the tiny run means something is broken, not slow (the lease TTL is 5 s). */
    private static final double TAKE_OVER_LIMIT_MS = 15_000;

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void tinyTakeoverAndThroughput_onPostgres_loseNothingAndMeasureATakeOver(@TempDir Path logs) throws Exception {
        ClusterSettings settings = ClusterSettings.tiny(TestPostgres.serverUrl(), logs);

        FailoverRun.Outcome takeover = FailoverRun.run(settings, ClusterSettings.Mode.TAKEOVER, System.out);
        System.out.println(ClusterReport.failover(settings, takeover));
        FailoverAudit audit = takeover.audit();
        assertTrue(audit.created() >= 100, "runs created: " + audit);
        assertEquals(0, audit.lost(), audit.toString());
        assertEquals(0, audit.stray(), audit.toString());
        assertEquals(1, audit.rounds().size(), audit.toString());
        double takeoverMs = audit.rounds().get(0).takeoverMs();
        assertFalse(Double.isNaN(takeoverMs), "no take-over measured: " + audit.rounds());
        assertTrue(takeoverMs > 0 && takeoverMs < TAKE_OVER_LIMIT_MS, "take-over " + takeoverMs + " ms");
        assertTrue(takeover.runFailures().isEmpty(), takeover.runFailures().toString());

        ThroughputRun.Outcome throughput = ThroughputRun.run(settings, 1, System.out);
        System.out.println(ClusterReport.throughput(settings, java.util.List.of(throughput)));
        assertEquals(0, throughput.lost(), throughput.violations().toString());
        assertEquals(0, throughput.duplicateKeys(), throughput.violations().toString());
        assertEquals(settings.instances(), throughput.dispatched(), throughput.violations().toString());
        assertTrue(throughput.store().dispatchPerSec() > 0, throughput.store().toLine());
        assertTrue(throughput.activity().statements() > 0, throughput.activity().toString());
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void tinyCancel_onPostgres_cancelsThroughAnotherMember_andNoneIsDelivered(@TempDir Path logs) throws Exception {
        ClusterSettings settings = ClusterSettings.tiny(TestPostgres.serverUrl(), logs);

        CancelRun.Outcome cancel = CancelRun.run(settings, System.out);
        System.out.println(ClusterReport.cancel(settings, cancel));
        assertTrue(cancel.violations().isEmpty(), cancel.violations().toString());
        assertEquals(settings.cancels(), cancel.latenciesUs().length, cancel.failures().toString());
        assertEquals(0, cancel.delivered());
        assertEquals(0, cancel.notCancelled());
        assertTrue(cancel.percentileMs(50) > 0 && cancel.percentileMs(50) <= cancel.maxMs(),
                cancel.percentileMs(50) + " / " + cancel.maxMs());
    }
}
