package dev.tickwheel.server.store.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.instance.Attempt;
import dev.tickwheel.server.instance.CancelOutcome;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.JobOperations;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.NewJob;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.store.ClusterStore;
import dev.tickwheel.server.store.ForeignClaim;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.store.Shards;
import dev.tickwheel.time.MisfirePolicy;
import dev.tickwheel.time.ScheduleSpec;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiPredicate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Fencing of claims and settles by shard leases ({@link InstanceStore}'s "Fencing" paragraph), on both sides of a
 * takeover, run once per database by a subclass. Member A (node 5) claims; a takeover is A's lease expiring by the
 * fake lease clock and member B joining and acquiring the shard (epoch 1 → 2). On H2 B's join also ends A as a gone
 * process would be; A's store object, like a paused process that wakes, still sends its statements, and they must
 * change nothing.
 */
abstract class AbstractFencingStoreContractTest extends AbstractMembersTest {

    private static final int NODE_A = 5;

    private final AtomicLong ids = new AtomicLong(1_000);
    private JdbcStores a;
    private Job job;
    private int shard;

    /** A settle of a claimed row by the member whose store is given; true if it applied. */
    enum Settle {
        SUCCEED((s, id) -> s.markAllSucceeded(List.of(id)).contains(id)),
        SUCCEED_WITH_OUTPUT((s, id) -> s.markAllSucceeded(java.util.Map.of(id, "{}")).contains(id)),
        FAIL((s, id) -> s.markFailed(id, "boom")),
        RETRY((s, id) -> s.retry(id, T0.plusSeconds(60), "again")),
        RELEASE(InstanceStore::release),
        INTERRUPT((s, id) -> s.markInterrupted(id, "cut")),
        MARK_CALL_STARTED((s, id) -> s.markCallStarted(List.of(id), T0.plusSeconds(1)).contains(id));

        final BiPredicate<InstanceStore, Long> call;

        Settle(BiPredicate<InstanceStore, Long> call) {
            this.call = call;
        }
    }

    @BeforeEach
    void memberAHoldsTheShardOfAJob() {
        a = member();
        assertEquals(NODE_A, a.cluster().join(OptionalInt.of(NODE_A), "a", TTL));
        // A job with a maxConcurrent (never reached) keeps its instances on its shard: the one fenced here.
        job = a.jobs().insert(new NewJob(ids.incrementAndGet(), "fenced", ScheduleSpec.api(), Target.handler("h"),
                null, true, MisfirePolicy.SKIP, RetryPolicy.NONE, new DeliveryPolicy(
                DeliveryPolicy.Guarantee.AT_LEAST_ONCE, 0, DeliveryPolicy.MAX_CONCURRENT,
                DeliveryPolicy.OverLimit.WAIT), JobOperations.DEFAULT, null));
        shard = Shards.of(job.id(), a.cluster().shardCount());
        assertEquals(Map.of(shard, 1L), a.cluster().acquire(List.of(shard), TTL));
    }

    // ---------------------------------------------------------------- claims

    @Test
    void claim_heldShard_recordsTheLeasesNodeAndEpoch() {
        Instance waiting = waiting();

        List<Instance> claimed = a.instances().claimBatch(List.of(waiting.id()), T0);

        assertEquals(1, claimed.size());
        assertEquals(NODE_A, claimed.get(0).claimNode());
        assertEquals(1, claimed.get(0).claimEpoch());
        assertEquals(claimed.get(0), a.instances().get(waiting.id()).orElseThrow(), "as returned, so stored");
    }

    @Test
    void claim_shardNeverAcquired_refusedAndRowUntouched() {
        a.cluster().release(List.of(shard));
        Instance waiting = waiting();

        assertEquals(List.of(), a.instances().claimBatch(List.of(waiting.id()), T0));

        assertEquals(waiting, a.instances().get(waiting.id()).orElseThrow());
    }

    @Test
    void claim_leaseExpired_refusedUntilRenewed() {
        Instance waiting = waiting();
        leaseClock.advance(TTL);

        assertEquals(List.of(), a.instances().claimBatch(List.of(waiting.id()), T0), "expired at exactly now");
        assertEquals(waiting, a.instances().get(waiting.id()).orElseThrow());

        assertEquals(Map.of(shard, 1L), a.cluster().renew(TTL).held());
        assertEquals(1, a.instances().claimBatch(List.of(waiting.id()), T0).size());
    }

    @Test
    void claim_shardTakenOverBeforeTheClaim_refusedForTheOldOwnerAndMadeByTheNew() {
        Instance waiting = waiting();
        JdbcStores b = takeOver();

        assertEquals(List.of(), a.instances().claimBatch(List.of(waiting.id()), T0));
        assertEquals(waiting, a.instances().get(waiting.id()).orElseThrow());

        List<Instance> claimedByB = b.instances().claimBatch(List.of(waiting.id()), T0);
        assertEquals(1, claimedByB.size());
        assertEquals(2, claimedByB.get(0).claimEpoch());
        assertEquals(nodeOf(b), claimedByB.get(0).claimNode());
    }

    @Test
    void claim_byMemberHoldingOtherShards_refused() {
        a.cluster().release(List.of(shard));
        a.cluster().acquire(List.of((shard + 1) % a.cluster().shardCount()), TTL);
        Instance waiting = waiting();

        assertEquals(List.of(), a.instances().claimBatch(List.of(waiting.id()), T0));
    }

    // ---------------------------------------------------------------- settles

    @ParameterizedTest
    @EnumSource(Settle.class)
    void settle_afterTakeover_refusedAndRowUntouched(Settle settle) {
        Instance claimed = claimedByA();
        takeOver();

        assertFalse(settle.call.test(a.instances(), claimed.id()));

        assertEquals(claimed, a.instances().get(claimed.id()).orElseThrow());
        assertEquals(List.of(Attempt.Outcome.DISPATCHING), outcomes(claimed.id()), "no attempt recorded");
    }

    @ParameterizedTest
    @EnumSource(Settle.class)
    void settle_leaseExpiredButNobodyTookIt_applies(Settle settle) {
        Instance claimed = claimedByA();
        leaseClock.advance(TTL.plusSeconds(30));

        assertTrue(settle.call.test(a.instances(), claimed.id()));
        if (settle == Settle.RETRY) {
            assertEquals(List.of(Attempt.Outcome.RETRIED), outcomes(claimed.id()), "the retry recorded its attempt");
        }
    }

    private List<Attempt.Outcome> outcomes(long instanceId) {
        return a.instances().history(instanceId).orElseThrow().attempts().stream().map(Attempt::outcome).toList();
    }

    @ParameterizedTest
    @EnumSource(Settle.class)
    void settle_byMemberThatDidNotClaim_refused(Settle settle) {
        Instance claimed = claimedByA();
        JdbcStores other = member(); // never joined: it holds no lease

        assertFalse(settle.call.test(other.instances(), claimed.id()));

        assertEquals(claimed, a.instances().get(claimed.id()).orElseThrow());
    }

    @Test
    void settle_afterOwnReacquisitionUnderANewEpoch_refused() {
        Instance claimed = claimedByA();
        leaseClock.advance(TTL);
        assertEquals(Map.of(shard, 2L), a.cluster().acquire(List.of(shard), TTL));

        assertFalse(a.instances().markFailed(claimed.id(), "boom"), "a claim of its earlier self is foreign");
        assertEquals(List.of(claimed.id()),
                a.instances().findForeignClaims(0, 10).stream().map(c -> c.instance().id()).toList());
    }

    // ---------------------------------------------------------------- foreign claims

    @Test
    void findForeignClaims_afterTakeover_newOwnerFindsTheOldClaimsOnly() {
        Instance first = claimedByA();
        Instance second = claimedByA();
        assertEquals(1, a.instances().markCallStarted(List.of(second.id()), T0).size());
        JdbcStores b = takeOver();
        long takenAtMs = nowMs();
        Instance own = waiting();
        assertEquals(1, b.instances().claimBatch(List.of(own.id()), T0).size());
        leaseClock.advance(Duration.ofMillis(700));

        List<ForeignClaim> found = b.instances().findForeignClaims(0, 10);

        assertEquals(List.of(first.id(), second.id()), found.stream().map(c -> c.instance().id()).toList());
        for (ForeignClaim claim : found) {
            assertEquals(takenAtMs, claim.leaseAcquiredAtMs());
            assertEquals(nowMs(), claim.dbNowMs());
            assertEquals(1, claim.instance().claimEpoch());
            assertEquals(NODE_A, claim.instance().claimNode());
        }
        assertEquals(T0, found.get(1).instance().callStartedAt());
        assertEquals(List.of(second.id()),
                b.instances().findForeignClaims(first.id(), 10).stream().map(c -> c.instance().id()).toList());
        assertEquals(List.of(), a.instances().findForeignClaims(0, 10), "the old owner holds no shard");
    }

    @Test
    void findForeignClaims_leaseOfNewOwnerExpired_findsNothing() {
        claimedByA();
        JdbcStores b = takeOver();
        leaseClock.advance(TTL);

        assertEquals(List.of(), b.instances().findForeignClaims(0, 10));
    }

    @Test
    void releaseForeign_byNewOwner_waitsAgainAsTheSameAttempt() {
        Instance claimed = claimedByA();
        a.instances().markCallStarted(List.of(claimed.id()), T0);
        JdbcStores b = takeOver();

        assertTrue(b.instances().releaseForeign(claimed.id(), 1));

        Instance released = b.instances().get(claimed.id()).orElseThrow();
        assertEquals(InstanceStatus.WAITING, released.status());
        assertEquals(0, released.attempt());
        assertNull(released.callStartedAt());
        Instance reclaimed = b.instances().claimBatch(List.of(claimed.id()), T0).get(0);
        assertEquals(1, reclaimed.attempt(), "the same attempt, so the same Idempotency-Key");
        assertEquals(2, reclaimed.claimEpoch());
        List<Attempt> attempts = b.instances().history(claimed.id()).orElseThrow().attempts();
        assertEquals(List.of(1), attempts.stream().map(Attempt::attempt).toList(), "the release recorded nothing");
        assertEquals(2, attempts.get(0).claimEpoch(), "the attempt is the new owner's claim");
        assertFalse(a.instances().release(claimed.id()), "the old claimant cannot settle the new claim");
    }

    @Test
    void interruptForeign_byNewOwner_interruptsWithTheReason() {
        Instance claimed = claimedByA();
        JdbcStores b = takeOver();

        assertTrue(b.instances().interruptForeign(claimed.id(), 1, "its member died during the call"));

        Instance interrupted = b.instances().get(claimed.id()).orElseThrow();
        assertEquals(InstanceStatus.INTERRUPTED, interrupted.status());
        assertEquals("its member died during the call", interrupted.error());
        assertFalse(b.instances().interruptForeign(claimed.id(), 1, "again"), "no longer dispatching");
    }

    @Test
    void releaseAndInterruptForeign_refusedUnlessStillDispatchingUnderTheGivenEpochOfAShardTakenOver() {
        Instance claimed = claimedByA();
        assertFalse(a.instances().releaseForeign(claimed.id(), 1), "not foreign to its own claimant");
        assertFalse(a.instances().interruptForeign(claimed.id(), 1, "x"), "not foreign to its own claimant");
        JdbcStores b = takeOver();
        Instance ownOfB = waiting();
        b.instances().claimBatch(List.of(ownOfB.id()), T0);

        assertFalse(b.instances().releaseForeign(claimed.id(), 2), "another epoch than the claim's");
        assertFalse(b.instances().releaseForeign(ownOfB.id(), 2), "B's own claim is not foreign");
        assertFalse(a.instances().releaseForeign(claimed.id(), 1), "A no longer holds the shard");
        assertEquals(claimed, b.instances().get(claimed.id()).orElseThrow());
        leaseClock.advance(TTL);
        assertFalse(b.instances().releaseForeign(claimed.id(), 1), "B's lease expired");
        assertFalse(b.instances().interruptForeign(claimed.id(), 1, "x"), "B's lease expired");
        assertEquals(claimed, b.instances().get(claimed.id()).orElseThrow());
    }

    // ---------------------------------------------------------------- unfenced

    @Test
    void cancelSkipAndJobDeletion_needNoLease() {
        Instance cancelled = waiting();
        Instance skipped = waiting();
        Instance ofDeletedJob = waiting();
        JdbcStores other = member(); // never joined: it holds no lease

        assertEquals(CancelOutcome.CANCELLED, other.instances().cancelAll(List.of(cancelled.id())).get(0).outcome());
        assertTrue(other.instances().skip(skipped.id(), "over the limit"));
        assertEquals(List.of(ofDeletedJob.id()), other.jobs().delete(job.id()).cancelledInstanceIds());
    }

    // ---------------------------------------------------------------- fixtures

    private Instance waiting() {
        return a.instances().insertRuns(List.of(new NewInstance(ids.incrementAndGet(), job.id(), T0, null)))
                .get(0).instance();
    }

    private Instance claimedByA() {
        Instance waiting = waiting();
        List<Instance> claimed = a.instances().claimBatch(List.of(waiting.id()), T0);
        assertEquals(1, claimed.size(), "claimed by A");
        return claimed.get(0);
    }

    /** A's lease expires; member B joins and takes the shard under epoch 2. */
    private JdbcStores takeOver() {
        leaseClock.advance(TTL);
        JdbcStores b = member();
        b.cluster().join(OptionalInt.empty(), "b", TTL);
        assertEquals(Map.of(shard, 2L), b.cluster().acquire(List.of(shard), TTL));
        return b;
    }

    private static int nodeOf(JdbcStores member) {
        ClusterStore cluster = member.cluster();
        return cluster.view().members().stream().filter(m -> m.session() == cluster.session()).findFirst()
                .orElseThrow().nodeId();
    }
}
