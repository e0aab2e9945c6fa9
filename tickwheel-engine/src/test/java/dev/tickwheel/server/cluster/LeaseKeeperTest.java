package dev.tickwheel.server.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.cluster.LeaseCluster.Node;
import dev.tickwheel.server.store.ClusterView.ShardLease;
import dev.tickwheel.server.store.MemberEvictedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The lease round against a faithful in-memory store shared by several members, on manual clocks: no threads (except
 * in the start/close test), no sleeps. {@link LeaseCluster#step} checks after every step that no shard is acted on by
 * two members and that whatever a member acts on is leased to it in the database.
 */
class LeaseKeeperTest {

    private static final Duration STEP = LeaseKeeper.DEFAULT_CHECK_INTERVAL;
    private static final Duration TTL = LeaseKeeper.DEFAULT_TTL;
    private static final Set<Integer> ALL = IntStream.range(0, 256).boxed().collect(Collectors.toSet());

    // ---- one member ----

    @Test
    void runOnce_aloneInTheCluster_acquiresEveryShardUnderEpochOne() {
        LeaseCluster cluster = new LeaseCluster();
        Node a = cluster.join();
        a.keeper.runOnce();

        assertEquals(ALL, a.held());
        assertEquals(List.of("acquired " + epochs(ALL, 1)), a.listener.events);
        assertTrue(a.keeper.mayFinish(17, 1));
        assertFalse(a.keeper.mayFinish(17, 2));
        assertEquals(0, a.keeper.stats().takeovers(), "never-held shards are no takeover");
        cluster.checkSafety();
    }

    @Test
    void renewal_everyRenewInterval_extendsTheLeasesAndKeepsTheirEpochs() {
        LeaseCluster cluster = new LeaseCluster();
        Node a = cluster.join();
        a.keeper.runOnce();
        for (int i = 0; i < 240; i++) { // a minute
            cluster.step();
            assertEquals(ALL, a.held());
        }
        assertEquals(1 + 60, a.store.count("renew"), "one renewal a second");
        assertEquals(1, a.listener.events.size(), "nothing but the first acquisition: " + a.listener.events);
        for (int shard = 0; shard < 256; shard++) {
            ShardLease lease = cluster.db.lease(shard);
            assertEquals(1, lease.epoch());
            assertTrue(lease.expiresAtMs() >= cluster.db.nowMs() + TTL.toMillis() - 1_000);
        }
        LeaseStats stats = a.keeper.stats();
        assertEquals(61, stats.renewals());
        assertEquals(0, stats.renewFailures());
        assertEquals(256, stats.shardsHeld());
    }

    @Test
    void failingStore_holdsTurnsFalseExactlyAtTheLocalDeadline_andLostIsToldOnce() {
        LeaseCluster cluster = new LeaseCluster();
        Node a = cluster.join();
        a.keeper.runOnce();
        cluster.stepFor(Duration.ofSeconds(2)); // renewals sent at +1 s and +2 s
        long lastRenewalSent = a.ticker.read();
        a.store.failing(true);

        // The deadline is the last renewal's send time + ttl - margin = +4 s from it; rounds keep failing until then.
        cluster.stepFor(Duration.ofMillis(3_750));
        assertEquals(ALL, a.held());
        cluster.advance(Duration.ofMillis(250).minusNanos(1));
        assertEquals(Duration.ofSeconds(4).minusNanos(1).toNanos(), a.ticker.read() - lastRenewalSent);
        assertEquals(ALL, a.held(), "one nanosecond before the deadline");
        cluster.advance(Duration.ofNanos(1));
        assertEquals(Set.of(), a.held(), "at the deadline, before any round ran");
        assertFalse(a.keeper.holds(0));
        assertFalse(a.keeper.mayFinish(0, 1));
        assertEquals(1, a.listener.events.size(), "the listener hears of it at the next round");

        a.keeper.runOnce();
        cluster.steps(40);
        assertEquals(List.of("acquired " + epochs(ALL, 1), "lost " + new TreeSet<>(ALL)), a.listener.events);
        assertTrue(a.listener.lostCount.values().stream().allMatch(n -> n == 1), "lost told once per shard");
        LeaseStats stats = a.keeper.stats();
        assertEquals(0, stats.shardsHeld());
        assertTrue(stats.renewFailures() >= 40, "a renewal tried every round: " + stats.renewFailures());
        assertTrue(stats.sinceLastRenewNanos() >= Duration.ofSeconds(14).toNanos());
    }

    @Test
    void renewal_slowToReachTheDatabase_deadlineCountsFromWhenItWasSent() {
        LeaseCluster cluster = new LeaseCluster();
        Node a = cluster.join();
        a.keeper.runOnce();
        List<Long> observed = new ArrayList<>();
        a.keeper.onRenewLatency(observed::add);
        Duration latency = Duration.ofMillis(700);
        a.store.beforeCall(() -> {
            if (a.store.calls.get(a.store.calls.size() - 1).equals("renew")) {
                cluster.advance(latency); // the database executes the renewal 700 ms after it was sent
            }
        });
        cluster.advance(Duration.ofSeconds(1));
        long sentNanos = a.ticker.read();
        a.keeper.runOnce();
        a.store.failing(true);

        assertEquals(List.of(latency.toNanos()), observed);
        assertEquals(latency.toNanos(), a.keeper.stats().lastRenewLatencyNanos());
        // The database's lease runs to (send + 700 ms) + ttl; the local deadline to send + ttl - margin.
        cluster.advance(Duration.ofNanos(sentNanos + Duration.ofSeconds(4).toNanos() - 1 - a.ticker.read()));
        assertEquals(ALL, a.held());
        cluster.advance(Duration.ofNanos(1));
        assertEquals(Set.of(), a.held());
    }

    @Test
    void recovery_storeBackBeforeAnyoneTookTheShards_holdsThemAgainUnderTheSameEpochs() {
        LeaseCluster cluster = new LeaseCluster();
        Node a = cluster.join();
        a.keeper.runOnce();
        a.store.failing(true);
        cluster.stepFor(Duration.ofMillis(4_500)); // past the local deadline (4 s), not the database's (5 s)
        assertEquals(Set.of(), a.held());
        assertEquals(ALL, a.listener.lostCount.keySet());
        a.listener.clearEvents();

        a.store.failing(false);
        cluster.step();

        assertEquals(List.of("acquired " + epochs(ALL, 1)), a.listener.events);
        assertEquals(ALL, a.held());
        assertEquals(0, a.keeper.stats().takeovers());
    }

    @Test
    void acquisition_takesOnlyTheFreeShardsItIsPreferredFor() {
        LeaseCluster cluster = new LeaseCluster();
        Node a = cluster.join();
        Node b = cluster.join(); // live by its node row; its store is driven by hand, not by its keeper
        Set<Integer> preferredByA = cluster.preferredShards(a, List.of(a, b));
        Set<Integer> preferredByB = cluster.preferredShards(b, List.of(a, b));
        Set<Integer> takenByB = new TreeSet<>();
        preferredByA.stream().limit(5).forEach(takenByB::add);
        preferredByB.stream().limit(5).forEach(takenByB::add);
        b.store.acquire(takenByB, TTL);

        a.keeper.runOnce();

        Set<Integer> expected = new TreeSet<>(preferredByA);
        expected.removeAll(takenByB);
        assertEquals(expected, a.held());
        assertEquals(List.of("acquired " + epochs(expected, 1)), a.listener.events);

        // B gives back the shards A prefers: A takes them at its next round, and counts them as taken over.
        Set<Integer> givenBack = new TreeSet<>(takenByB);
        givenBack.retainAll(preferredByA);
        b.store.release(givenBack);
        b.store.renew(TTL);
        cluster.advance(STEP);
        a.keeper.runOnce();

        assertEquals(preferredByA, a.held());
        assertEquals("acquired " + epochs(givenBack, 2), a.listener.events.get(1));
        assertEquals(5, a.keeper.stats().takeovers());
        cluster.checkSafety();
    }

    // ---- membership changes ----

    @Test
    void join_firstMemberDrainsUntilDrained_andTheJoinerTakesEachShardRightAfterItsRelease() {
        LeaseCluster cluster = new LeaseCluster();
        Node a = cluster.join();
        a.keeper.runOnce();
        a.listener.busy.addAll(ALL); // calls in flight everywhere
        cluster.step();

        Node b = cluster.join();
        Set<Integer> moving = cluster.preferredShards(b, List.of(a, b));
        b.keeper.runOnce();
        assertEquals(Set.of(), b.held(), "every shard B prefers is still A's");
        assertEquals(ALL, a.held());

        cluster.step(); // A sees B: its shards drain
        assertEquals(without(ALL, moving), a.held(), "draining shards are not acted on from the moment they drain");
        assertEquals(moving.size(), a.draining());
        assertEquals("lost " + new TreeSet<>(moving), last(a.listener.events));
        for (int shard : moving) { // no new work, but what A claimed under the lease is still A's to call and settle
            assertFalse(a.keeper.holds(shard));
            assertTrue(a.keeper.mayFinish(shard, 1), "draining shard " + shard + " may finish its calls");
            assertFalse(a.keeper.mayFinish(shard, 2), "not under another epoch");
        }
        assertEquals(Set.of(), b.held());
        cluster.checkEveryShardHeldOrDraining();

        long bAcquires = b.store.count("acquire");
        for (int i = 0; i < 40; i++) { // 10 s, twice the ttl: A keeps renewing what drains, B waits
            cluster.step();
            assertEquals(bAcquires, b.store.count("acquire"), "B asks for nothing that is held");
            assertEquals(Set.of(), b.held());
            assertEquals(moving.size(), a.draining());
            cluster.checkEveryShardHeldOrDraining();
        }
        assertTrue(a.listener.drainedAsked > 0);
        assertEquals(0, a.store.count("release"));
        for (int shard : moving) {
            assertEquals(a.store.session(), cluster.db.lease(shard).ownerSession());
            assertEquals(1, cluster.db.lease(shard).epoch());
        }

        // Half of them settle: exactly those are released, and B takes them in the same step.
        Set<Integer> firstHalf = moving.stream().limit(moving.size() / 2).collect(Collectors.toCollection(TreeSet::new));
        a.listener.busy.removeAll(firstHalf);
        cluster.step();
        assertEquals(firstHalf, b.held());
        assertEquals(moving.size() - firstHalf.size(), a.draining());
        assertEquals(List.of("acquired " + epochs(firstHalf, 2)), b.listener.events);
        cluster.checkEveryShardHeldOrDraining();

        a.listener.busy.clear();
        cluster.step();
        cluster.checkEveryShardHeldOrDraining();
        cluster.assertSettled(List.of(a, b));
        assertEquals(moving.size(), a.keeper.stats().shardsReleased());
        assertEquals(moving.size(), b.keeper.stats().takeovers(), "each was A's before");
        assertEquals(0, a.keeper.stats().takeovers());
        cluster.steps(40);
        cluster.assertSettled(List.of(a, b));
    }

    @Test
    void drain_neverDrained_releasesAfterMaxDrainAndNotBefore() {
        LeaseCluster cluster = new LeaseCluster();
        Node a = cluster.join();
        a.keeper.runOnce();
        a.listener.busy.addAll(ALL);
        Node b = cluster.join();
        b.keeper.runOnce();
        cluster.step(); // the drain begins
        long drainStart = a.ticker.read();
        assertTrue(a.draining() > 0);

        while (a.ticker.read() - drainStart < LeaseKeeper.DEFAULT_MAX_DRAIN.toNanos() - STEP.toNanos()) {
            cluster.step();
            assertEquals(0, a.store.count("release"));
            assertEquals(Set.of(), b.held());
        }
        cluster.step(); // maxDrain after the drain began
        assertEquals(1, a.store.count("release"));
        cluster.assertSettled(List.of(a, b));
    }

    @Test
    void drain_shardPreferredAgainBeforeItsRelease_isHeldAgainUnderItsLease() {
        LeaseCluster cluster = new LeaseCluster();
        Node a = cluster.join();
        a.keeper.runOnce();
        a.listener.busy.addAll(ALL);
        Node b = cluster.join();
        b.keeper.runOnce();
        cluster.step();
        Set<Integer> moving = cluster.preferredShards(b, List.of(a, b));
        assertEquals(moving.size(), a.draining());

        b.running = false; // B dies before anything was released to it
        while (cluster.db.member(b.nodeId).liveAt(cluster.db.nowMs() + STEP.toMillis())) {
            cluster.step();
            assertEquals(moving.size(), a.draining());
        }
        cluster.step(); // B's node row has expired: A is preferred for every shard again

        assertEquals(ALL, a.held());
        assertEquals(0, a.draining());
        assertEquals("acquired " + epochs(moving, 1), last(a.listener.events), "same epochs: the lease was kept");
        assertEquals(1, a.store.count("acquire"), "nothing acquired again");
    }

    @Test
    void join_nothingDrainsToAMemberUntilItsRoundsRun_soNoShardLiesFreeWhileItsServerStarts() {
        LeaseCluster cluster = new LeaseCluster();
        Node a = cluster.join();
        cluster.step();
        Node b = cluster.join(); // its server opened (node row written); scheduling not started yet
        b.running = false;
        Set<Integer> moving = cluster.preferredShards(b, List.of(a, b));

        for (int i = 0; i < 12; i++) { // 3 s: B's row is live all along, but it takes nothing
            cluster.step();
            assertEquals(ALL, a.held(), "A keeps acting on every shard while B cannot");
            assertEquals(0, a.draining());
            cluster.checkEveryShardHeldOrDraining();
        }

        b.running = true; // scheduling starts: its first round renews, and from then on it counts
        for (int i = 0; i < 4; i++) {
            cluster.step();
            cluster.checkEveryShardHeldOrDraining();
        }
        cluster.assertSettled(List.of(a, b));
        assertEquals(moving, b.held());
        for (int shard : moving) {
            assertEquals(2, cluster.db.lease(shard).epoch(), "handed over once, A to B");
        }
    }

    @Test
    void start_membersJoiningTogether_eachTakeOnlyTheirShare_noneIsHandedOn() {
        LeaseCluster cluster = new LeaseCluster();
        Node a = cluster.join();
        Node b = cluster.join();
        Node c = cluster.join();
        cluster.steps(4);

        cluster.assertSettled(List.of(a, b, c));
        for (int shard = 0; shard < cluster.db.shardCount(); shard++) {
            assertEquals(1, cluster.db.lease(shard).epoch(), "shard " + shard + " changed hands");
        }
        assertEquals(0, a.store.count("release") + b.store.count("release") + c.store.count("release"));
    }

    @Test
    void killedMember_othersTakeItsShardsOnceItsLeasesExpireByTheDatabaseClock_notBefore() {
        LeaseCluster cluster = new LeaseCluster();
        Node a = cluster.join();
        Node b = cluster.join();
        Node c = cluster.join();
        cluster.steps(8);
        cluster.assertSettled(List.of(a, b, c));
        Set<Integer> cShards = c.held();
        long cExpiry = cShards.stream().mapToLong(s -> cluster.db.lease(s).expiresAtMs()).max().orElseThrow();

        c.running = false; // killed: no more rounds, nothing released
        while (cluster.db.nowMs() < cExpiry) {
            for (int shard : cShards) {
                assertEquals(c.store.session(), cluster.db.lease(shard).ownerSession(), "taken before it expired");
            }
            assertTrue(a.held().stream().noneMatch(cShards::contains));
            assertTrue(b.held().stream().noneMatch(cShards::contains));
            cluster.step();
        }
        cluster.step();

        cluster.assertSettled(List.of(a, b));
        assertEquals(cShards.size(), a.keeper.stats().takeovers() + b.keeper.stats().takeovers());
        for (int shard : cShards) {
            assertEquals(2, cluster.db.lease(shard).epoch());
        }
    }

    @Test
    void pausedMember_actsOnNothingTheMomentItsDeadlinePasses_andGetsShardsBackOnlyByRebalancing() {
        LeaseCluster cluster = new LeaseCluster();
        Node a = cluster.join();
        Node b = cluster.join();
        cluster.steps(8);
        cluster.assertSettled(List.of(a, b));
        Set<Integer> bShards = b.held();
        long lastRenewalSent = b.ticker.read() - b.keeper.stats().sinceLastRenewNanos();

        b.running = false; // SIGSTOP: its clock runs on, its threads do not
        long deadline = lastRenewalSent + Duration.ofSeconds(4).toNanos();
        while (deadline - b.ticker.read() > STEP.toNanos()) {
            cluster.step();
        }
        cluster.advance(Duration.ofNanos(deadline - 1 - b.ticker.read()));
        assertEquals(bShards, b.held());
        int someShard = bShards.iterator().next();
        long itsEpoch = cluster.db.lease(someShard).epoch();
        assertTrue(b.keeper.mayFinish(someShard, itsEpoch));
        cluster.advance(Duration.ofNanos(1));
        assertEquals(Set.of(), b.held(), "resumed past its deadline: no shard, before its lease thread runs");
        assertFalse(b.keeper.mayFinish(someShard, itsEpoch), "and no call it had claimed starts either");
        cluster.stepFor(Duration.ofSeconds(10)); // A takes B's shards once they expire
        cluster.assertSettled(List.of(a));

        b.listener.clearEvents();
        a.listener.clearEvents();
        b.running = true;
        b.keeper.runOnce(); // SIGCONT
        assertEquals(List.of("lost " + new TreeSet<>(bShards)), b.listener.events);
        assertEquals(Set.of(), b.held());
        while (a.store.count("release") == 0) {
            assertTrue(b.listener.acquiredSinceClear.isEmpty(), "B got a shard before A released it");
            cluster.step();
        }
        cluster.steps(2);
        cluster.assertSettled(List.of(a, b));
        for (int shard : bShards) {
            assertEquals(3, cluster.db.lease(shard).epoch(), "B, then A, then B again");
        }
        assertTrue(b.listener.lostCount.values().stream().allMatch(n -> n == 1));
    }

    @Test
    void recovery_shardsTakenWhileTheStoreFailed_areNotToldAcquiredAgain() {
        LeaseCluster cluster = new LeaseCluster();
        Node a = cluster.join();
        Node b = cluster.join();
        cluster.steps(8);
        Set<Integer> aShards = a.held();
        a.store.failing(true); // A's connection to the database is down; B's is fine
        cluster.stepFor(Duration.ofSeconds(8));
        cluster.assertSettled(List.of(b));

        a.listener.clearEvents();
        a.store.failing(false);
        a.keeper.runOnce();
        assertEquals(List.of(), a.listener.events, "the renewal gives A nothing, and B holds what A prefers");
        cluster.stepFor(Duration.ofSeconds(2));
        cluster.assertSettled(List.of(a, b));
        assertEquals(aShards, a.listener.acquiredSinceClear);
    }

    // ---- eviction, lifecycle ----

    @Test
    void eviction_nodeIdTakenAfterALongPause_dropsEverythingAndStops() {
        LeaseCluster cluster = new LeaseCluster();
        Node a = cluster.join();
        Node b = cluster.join();
        cluster.steps(8);
        Set<Integer> bShards = b.held();
        b.running = false;
        cluster.stepFor(Duration.ofSeconds(7));
        Node c = cluster.join(OptionalInt.of(b.nodeId)); // a new process under B's id
        assertEquals(b.nodeId, c.nodeId);
        cluster.stepFor(Duration.ofSeconds(3));
        b.listener.clearEvents();

        b.keeper.runOnce();

        assertEquals(List.of("lost " + new TreeSet<>(bShards), "evicted"), b.listener.events);
        assertInstanceOf(MemberEvictedException.class, b.listener.evictedBy);
        assertEquals(Set.of(), b.held());
        int calls = b.store.calls.size();
        b.keeper.runOnce();
        b.keeper.close();
        assertEquals(calls, b.store.calls.size(), "an evicted keeper calls the store no more, not even leave()");
        assertEquals("cannot be started once closed",
                assertThrows(IllegalStateException.class, b.keeper::start).getMessage());
        cluster.assertSettled(List.of(a, c));
    }

    @Test
    void eviction_listenerClosesTheKeeperFromEvicted_doesNotLeave() {
        LeaseCluster cluster = new LeaseCluster();
        Node a = cluster.join();
        a.keeper.runOnce();
        FakeClusterStore usurper = cluster.db.open();
        cluster.advance(TTL); // A stalls past its node row's expiry, and another process takes its id
        usurper.join(OptionalInt.of(a.nodeId), "usurper", TTL);
        LeaseKeeper[] keeper = new LeaseKeeper[1];
        List<String> told = new ArrayList<>();
        keeper[0] = new LeaseKeeper(a.store, a.nodeId, cluster.settings, a.ticker, new ShardListener() {
            @Override
            public void acquired(Map<Integer, Long> shards) {
            }

            @Override
            public void lost(Set<Integer> shards) {
            }

            @Override
            public void evicted(RuntimeException cause) {
                told.add("evicted");
                keeper[0].close(); // what a member does: stop at once, from the lease thread
            }
        });

        keeper[0].runOnce();

        assertEquals(List.of("evicted"), told);
        assertEquals(0, a.store.count("leave"));
        assertEquals(Set.of(), keeper[0].heldShards());
    }

    @Test
    void close_releasesEveryLeaseAndTheNodeRowAtOnce_once() {
        LeaseCluster cluster = new LeaseCluster();
        Node a = cluster.join();
        Node b = cluster.join();
        cluster.steps(8);

        b.keeper.close();
        b.running = false;
        b.keeper.close();

        assertEquals(1, b.store.count("leave"));
        assertEquals(Set.of(), b.held());
        assertFalse(cluster.db.member(b.nodeId).liveAt(cluster.db.nowMs()));
        for (int shard = 0; shard < 256; shard++) {
            assertNotEquals(b.store.session(), cluster.db.lease(shard).ownerSession());
        }
        cluster.step();
        cluster.assertSettled(List.of(a));
        assertEquals("cannot be started once closed",
                assertThrows(IllegalStateException.class, b.keeper::start).getMessage());
    }

    @Test
    void start_aloneInTheCluster_holdsEveryShardWhenItReturns_thenRunsRoundsOnItsThread() throws Exception {
        // Intervals of hours: the lease thread exists but runs no round during the test.
        LeaseKeeper.Settings slow = new LeaseKeeper.Settings(Duration.ofHours(4), Duration.ofHours(1),
                Duration.ofHours(1), Duration.ofMinutes(1), Duration.ofMinutes(1));
        LeaseCluster cluster = new LeaseCluster(slow);
        Node a = cluster.join();

        a.keeper.start();

        assertEquals(ALL, a.held());
        Thread thread = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("tickwheel-lease-")).findFirst().orElseThrow();
        assertTrue(thread.isDaemon());
        assertEquals("already started", assertThrows(IllegalStateException.class, a.keeper::start).getMessage());
        a.keeper.close();
        assertFalse(thread.isAlive(), "close() stops the lease thread before it returns");
        assertEquals(1, a.store.count("leave"));
        assertEquals(Set.of(), a.held());
    }

    @Test
    void listener_throws_theRoundGoesOnAndCountsIt() {
        LeaseCluster cluster = new LeaseCluster();
        Node a = cluster.join();
        LeaseKeeper keeper = new LeaseKeeper(a.store, a.nodeId, cluster.settings, a.ticker, new ShardListener() {
            @Override
            public void acquired(Map<Integer, Long> shards) {
                throw new IllegalStateException("listener bug");
            }

            @Override
            public void lost(Set<Integer> shards) {
            }
        });
        keeper.runOnce();
        assertEquals(ALL, keeper.heldShards());
        assertEquals(1, keeper.stats().roundFailures());
    }

    @Test
    void settings_outOfRangeOrInconsistent_throwNamingTheSetting() {
        Duration s1 = Duration.ofSeconds(1);
        assertMessage("ttl must be in (PT0S, PT24H]: PT0S",
                () -> new LeaseKeeper.Settings(Duration.ZERO, s1, s1, s1, s1));
        assertMessage("renewInterval must be in (PT0S, PT24H]: PT-1S",
                () -> new LeaseKeeper.Settings(TTL, s1.negated(), s1, s1, s1));
        assertMessage("safetyMargin must be in [PT0S, PT24H]: PT-1S",
                () -> new LeaseKeeper.Settings(TTL, s1, s1, s1.negated(), s1));
        assertMessage("maxDrain must be in (PT0S, PT24H]: PT48H",
                () -> new LeaseKeeper.Settings(TTL, s1, s1, s1, Duration.ofDays(2)));
        assertMessage("renewInterval must be shorter than ttl: renewInterval=PT5S, ttl=PT5S",
                () -> new LeaseKeeper.Settings(TTL, TTL, s1, s1, s1));
        assertMessage("checkInterval must be at most renewInterval: checkInterval=PT2S, renewInterval=PT1S",
                () -> new LeaseKeeper.Settings(TTL, s1, Duration.ofSeconds(2), s1, s1));
        assertMessage("safetyMargin leaves no time to renew: renewInterval + checkInterval + safetyMargin must be below"
                        + " ttl, got PT1S + PT1S + PT3S >= PT5S",
                () -> new LeaseKeeper.Settings(TTL, s1, s1, Duration.ofSeconds(3), s1));
        assertThrows(NullPointerException.class, () -> new LeaseKeeper.Settings(TTL, s1, s1, null, s1));
        LeaseKeeper.Settings defaults = LeaseKeeper.Settings.defaults();
        assertEquals(new LeaseKeeper.Settings(Duration.ofSeconds(5), Duration.ofSeconds(1), Duration.ofMillis(250),
                Duration.ofSeconds(1), Duration.ofSeconds(30)), defaults);
    }

    private static void assertMessage(String expected, org.junit.jupiter.api.function.Executable executable) {
        assertEquals(expected, assertThrows(IllegalArgumentException.class, executable).getMessage());
    }

    private static String epochs(Set<Integer> shards, long epoch) {
        return new TreeSet<>(shards).stream().map(s -> s + "=" + epoch)
                .collect(Collectors.joining(", ", "{", "}"));
    }

    private static Set<Integer> without(Set<Integer> all, Set<Integer> some) {
        Set<Integer> rest = new HashSet<>(all);
        rest.removeAll(some);
        return rest;
    }

    private static String last(List<String> events) {
        return events.get(events.size() - 1);
    }
}
