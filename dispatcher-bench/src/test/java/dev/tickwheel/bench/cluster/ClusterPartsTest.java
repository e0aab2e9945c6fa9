package dev.tickwheel.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.bench.CommandLine;
import dev.tickwheel.bench.webhook.DeliveryLog;
import dev.tickwheel.fixtures.cluster.ClusterJob;
import dev.tickwheel.fixtures.cluster.RunStream;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The cluster harness's arithmetic and settings, without servers: a few milliseconds. */
class ClusterPartsTest {

    private static final long SIGNAL_MS = 1_000_000;

    @Test
    void audit_takeOverIsFirstArrivalOfAVictimInstanceDueAfterTheSignal() {
        ClusterJob victimJob = job(11, 5);
        ClusterJob otherJob = job(12, 6);
        List<RunStream.Run> runs = List.of(
                run(1, victimJob, SIGNAL_MS - 500), // due before the signal: not a take-over
                run(2, victimJob, SIGNAL_MS + 100), // first due after; arrives at +5 200
                run(3, victimJob, SIGNAL_MS + 300), // arrives earlier, at +5 100: the take-over
                run(4, otherJob, SIGNAL_MS + 50), // another member's shard: steady state
                run(5, victimJob, SIGNAL_MS + 20_000), // after the window; never delivered: lost
                run(6, otherJob, SIGNAL_MS + 12_000), // while the restarted member (node 3) joins, claimed by it
                run(7, otherJob, SIGNAL_MS + 13_000)); // while it joins, claimed by another member
        DeliveryLog log = new DeliveryLog();
        log.append(1, 1, SIGNAL_MS + 5_300);
        log.append(2, 1, SIGNAL_MS + 5_200);
        log.append(3, 1, SIGNAL_MS + 5_100);
        log.append(3, 1, SIGNAL_MS + 5_150); // the same key again
        log.append(4, 1, SIGNAL_MS + 60);
        log.append(6, 1, SIGNAL_MS + 12_700);
        log.append(7, 1, SIGNAL_MS + 13_005);
        FailoverRound round = new FailoverRound(1, false, "member-1", 0, Set.of(5, 7), SIGNAL_MS, -1, 137,
                SIGNAL_MS + 4_800, SIGNAL_MS + 10_000, 3, SIGNAL_MS + 18_000, "1 / 1 / 1", null);

        FailoverAudit audit = new FailoverAudit(List.of(round), runs, rows(runs), log, 10_000);

        FailoverAudit.RoundMeasure m = audit.rounds().get(0);
        assertEquals(5_100, m.takeoverMs());
        assertEquals(100, m.firstDueMs());
        assertEquals(2, m.windowInstances());
        assertEquals(2, m.windowDelivered());
        assertEquals(5_100, m.lateMaxMs()); // instance 2: due +100, arrived +5 200
        assertEquals(1, m.jobShards()); // shard 5 has jobs, shard 7 none
        assertEquals(1, audit.lost());
        assertEquals(1, audit.duplicateKeys());
        assertEquals(4_800, round.leasesMovedMs());
        assertEquals(8_000, round.rejoinMs());
        assertEquals(1, audit.outsideLateMs(false).length); // instance 4; 1 is in the second before the signal
        assertEquals(10, audit.outsideLateMs(false)[0]);
        assertEquals(2, audit.outsideLateMs(true).length); // instances 6 and 7
        assertEquals(1, audit.handedOverLateMs().length); // instance 6, claimed by the joiner
        assertEquals(700, audit.handedOverLateMs()[0]);
        assertEquals(6, audit.latestOutside().get(0).instanceId());
        assertEquals(3, audit.latestOutside().get(0).claimNode());
        assertEquals(3, audit.latestOutside().size());
    }

    @Test
    void audit_roundWithoutADeliveryAfterTheSignal_hasNoTakeOver() {
        ClusterJob victimJob = job(11, 5);
        List<RunStream.Run> runs = List.of(run(1, victimJob, SIGNAL_MS - 10));
        FailoverRound round = new FailoverRound(1, true, "member-2", 1, Set.of(5), SIGNAL_MS, 300, 143, -1,
                SIGNAL_MS + 10_000, 3, SIGNAL_MS + 12_000, "1 / 1 / 1", null);
        DeliveryLog log = new DeliveryLog();
        log.append(1, 1, SIGNAL_MS + 5);

        FailoverAudit audit = new FailoverAudit(List.of(round), runs, rows(runs), log, 10_000);

        assertTrue(Double.isNaN(audit.rounds().get(0).takeoverMs()));
        assertEquals(0, audit.takeoverMs().length);
        assertEquals(-1, round.leasesMovedMs());
        assertEquals(0, audit.lost());
    }

    @Test
    void audit_roundDisturbedByAPostgresRestart_keepsItsInstancesOutOfTheSteadyState() {
        ClusterJob otherJob = job(12, 6);
        List<RunStream.Run> runs = List.of(run(1, otherJob, SIGNAL_MS + 2_000), run(2, otherJob, SIGNAL_MS + 30_000));
        FailoverRound round = new FailoverRound(1, false, "member-1", 0, Set.of(5), SIGNAL_MS, -1, 137,
                SIGNAL_MS + 4_800, SIGNAL_MS + 10_000, 3, SIGNAL_MS + 18_000, "1 / 1 / 1", "PostgreSQL was restarted");
        DeliveryLog log = new DeliveryLog();
        log.append(1, 1, SIGNAL_MS + 12_000); // 10 s late: the outage's
        log.append(2, 1, SIGNAL_MS + 30_020);

        FailoverAudit audit = new FailoverAudit(List.of(round), runs, rows(runs), log, 10_000);

        assertEquals(1, audit.inDisturbedRounds());
        assertEquals(1, audit.outsideLateMs(false).length);
        assertEquals(20, audit.outsideLateMs(false)[0]);
        assertTrue(ClusterReport.failover(ClusterSettings.DEFAULTS, new FailoverRun.Outcome(
                ClusterSettings.Mode.TAKEOVER, audit, List.of(), 0, "1", "1", 1, null, List.of()))
                .contains("round 1 is left out"));
    }

    @Test
    void settings_readTheCommandLine_andNameABadOption() {
        ClusterSettings s = ClusterSettings.DEFAULTS.with(CommandLine.parse(new String[] {"--mode", "takeover,graceful",
                "--kills", "3", "--nodes", "1,3,5", "--observe-s", "12"}, ClusterSettings.OPTIONS));

        assertEquals(List.of(ClusterSettings.Mode.TAKEOVER, ClusterSettings.Mode.GRACEFUL), s.modes());
        assertEquals(3, s.kills());
        assertEquals(List.of(1, 3, 5), s.throughputNodes());
        assertEquals(12_000, s.observeMs());
        assertEquals(List.of("--lease-ttl-ms", "5000", "--lease-renew-ms", "1000"), s.serverArgs());
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> CommandLine.parse(new String[] {"--kill", "3"}, ClusterSettings.OPTIONS));
        assertTrue(unknown.getMessage().contains("--kill"), unknown.getMessage());
        IllegalArgumentException notNumber = assertThrows(IllegalArgumentException.class,
                () -> ClusterSettings.DEFAULTS.with(CommandLine.parse(new String[] {"--kills", "many"},
                        ClusterSettings.OPTIONS)));
        assertTrue(notNumber.getMessage().contains("--kills"), notNumber.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ClusterSettings.DEFAULTS.with(CommandLine.parse(
                new String[] {"--mode", "chaos"}, ClusterSettings.OPTIONS)));
        assertThrows(IllegalArgumentException.class, () -> ClusterSettings.DEFAULTS.with(CommandLine.parse(
                new String[] {"--instances", "1001"}, ClusterSettings.OPTIONS)));
    }

    private static RunStream.Run run(long instanceId, ClusterJob job, long dueMs) {
        return new RunStream.Run(instanceId, job, job.shard(), "member-1", 0, 1_000, dueMs - 1_000, dueMs);
    }

    /** A job whose instances the audit places on the job's shard, as the take-over runs count them. */
    private static ClusterJob job(long id, int shard) {
        return new ClusterJob(id, shard, "member-1", true, 256);
    }

    private static List<Instance> rows(List<RunStream.Run> runs) {
        List<Instance> rows = new ArrayList<>();
        for (RunStream.Run run : runs) {
            Instant due = Instant.ofEpochMilli(run.dueMs());
            rows.add(new Instance(run.instanceId(), run.job().id(), InstanceStatus.SUCCEEDED, null, due, due, 1, null,
                    null, null, due, due, run.job().shard(), run.instanceId() == 6 ? 3 : 0, 1, null,
                    null, null, null, null, null));
        }
        return rows;
    }
}
