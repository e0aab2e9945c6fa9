package dev.tickwheel.server.store.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.JobOperations;
import dev.tickwheel.server.job.NewJob;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.store.ClusterStore;
import dev.tickwheel.server.store.ForeignClaim;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.store.JobAdvance;
import dev.tickwheel.server.store.Shards;
import dev.tickwheel.time.MisfirePolicy;
import dev.tickwheel.time.ScheduleSpec;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Three members on one PostgreSQL database race for the same few shards and the same instances: each member's lease
 * thread renews, acquires and now and then releases, or stops renewing for a while (a pause, after which its leases
 * may have been taken); two worker threads per member claim random instances and settle them later, some long after
 * their shard moved; one thread per member settles the foreign claims it inherits. Time is a fake lease clock the
 * test thread advances tick by tick, so expiries and takeovers happen without waiting.
 *
 * <p>Like a dispatcher, which tracks its calls by instance id, a member never claims an instance while one of its
 * own earlier claims of it is still pending (the workers reserve ids in a member-wide set). That matters: settles
 * name only the instance, so a member that lost a shard, took it back and claimed the same row again would settle
 * the new claim with a stale handle of the old one; the store cannot tell them apart.
 *
 * <p>Checked afterwards, from a ledger every thread writes and from the table:
 * <ul>
 *   <li>every claim (instance, attempt, epoch) was settled at most once, by its claimant or by the shard's next
 *       owner, never by both: per key, claims minus settles is 0 or 1, and it is 1 exactly for the rows left
 *       DISPATCHING; so an instance was claimed at most once per attempt (a release gives the attempt back);</li>
 *   <li>every claim was made by the member that held the shard at the claim's epoch: its node and an epoch its own
 *       acquire or renew reported;</li>
 *   <li>no two members ever believed, by their acquire and renew results, that they held the same shard at the same
 *       epoch.</li>
 * </ul>
 * and, as they happen, that no claim or settle succeeded after a later epoch of its shard had been acquired, as far
 * as the thread could know: an acquire publishes its epochs once it returned (so committed), and a claim or settle
 * that started after seeing a later epoch published must be refused by the fence.
 * and that the run did exercise takeovers, refused settles and foreign settles, so it cannot pass idle.
 */
class PostgresClusterStoreStressTest extends AbstractMembersTest {

    private static final int MEMBERS = 3;
    private static final int WORKERS_PER_MEMBER = 2;
    private static final int SHARDS = 6;
    private static final int JOBS_PER_SHARD = 3;
    private static final int INSTANCES_PER_JOB = 60;
    private static final int TICKS = 400;
    private static final Duration LEASE_TTL = Duration.ofMillis(100);

    private PostgresTestDatabase database;

    @Override
    protected String createDatabase() {
        database = PostgresTestDatabase.createSchema();
        return database.jdbcUrl();
    }

    @Override
    protected void dropDatabase() throws SQLException {
        if (database != null) {
            database.dropSchema();
        }
    }

    /** A claim or settle, by instance, attempt and the claim's epoch. */
    private record ClaimKey(long instanceId, int attempt, long epoch) {
        static ClaimKey of(Instance row) {
            return new ClaimKey(row.id(), row.attempt(), row.claimEpoch());
        }
    }

    /** A claim as the claimant saw it. */
    private record Claim(int member, Instance row) {
    }

    private final Map<ClaimKey, AtomicInteger> claims = new ConcurrentHashMap<>();
    private final Map<ClaimKey, AtomicInteger> settles = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Claim> claimLog = new ConcurrentLinkedQueue<>();
    /** "shard@epoch" → the member that believed it held it. */
    private final Map<String, Integer> believedOwner = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
    private final AtomicInteger refusedSettles = new AtomicInteger();
    private final AtomicInteger foreignSettles = new AtomicInteger();
    private final AtomicInteger takeovers = new AtomicInteger();
    /** Shard → the highest epoch an acquire has returned (so committed). */
    private final Map<Integer, Long> publishedEpochs = new ConcurrentHashMap<>();

    @Test
    void membersRaceForShardsAndInstances_claimsAndSettlesStayFenced() throws Exception {
        long seed = System.nanoTime();
        System.out.println(getClass().getSimpleName() + " seed=" + seed);
        Random random = new Random(seed);
        List<JdbcStores> members = new ArrayList<>();
        List<Integer> nodeIds = new ArrayList<>();
        for (int m = 0; m < MEMBERS; m++) {
            JdbcStores stores = member(6);
            nodeIds.add(stores.cluster().join(OptionalInt.empty(), "stress member " + m, LEASE_TTL));
            members.add(stores);
        }
        List<Integer> shards = new ArrayList<>();
        List<Long> instanceIds = createInstances(members.get(0), shards);
        List<Set<Long>> inFlight = new ArrayList<>();
        for (int m = 0; m < MEMBERS; m++) {
            inFlight.add(ConcurrentHashMap.newKeySet());
        }

        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService background = Executors.newCachedThreadPool();
        ExecutorService leaseRounds = Executors.newFixedThreadPool(MEMBERS);
        List<Future<?>> running = new ArrayList<>();
        try {
            for (int m = 0; m < MEMBERS; m++) {
                int member = m;
                for (int w = 0; w < WORKERS_PER_MEMBER; w++) {
                    long workerSeed = seed + 1_000L * m + w;
                    running.add(background.submit(() -> work(member, members.get(member).instances(), instanceIds,
                            inFlight.get(member), new Random(workerSeed), stop)));
                }
                running.add(background.submit(() -> settleForeign(members.get(member).instances(),
                        new Random(seed - member), stop)));
            }
            int[] pausedUntil = new int[MEMBERS];
            for (int tick = 0; tick < TICKS; tick++) {
                leaseClock.advance(Duration.ofMillis(5 + random.nextInt(30)));
                List<Future<?>> round = new ArrayList<>();
                for (int m = 0; m < MEMBERS; m++) {
                    if (pausedUntil[m] > tick) {
                        continue;
                    }
                    if (random.nextInt(100) < 3) {
                        pausedUntil[m] = tick + 3 + random.nextInt(8); // stops renewing: its leases may be taken
                        continue;
                    }
                    int member = m;
                    List<Integer> wanted = shards.stream().filter(s -> random.nextInt(3) > 0).toList();
                    boolean releaseOne = random.nextInt(100) < 5;
                    round.add(leaseRounds.submit(() -> leaseRound(member, members.get(member).cluster(), wanted,
                            releaseOne)));
                }
                for (Future<?> f : round) {
                    f.get(30, TimeUnit.SECONDS);
                }
            }
        } finally {
            stop.set(true);
            leaseRounds.shutdown();
            background.shutdown();
        }
        for (Future<?> f : running) {
            f.get(60, TimeUnit.SECONDS); // rethrows anything a thread threw
        }
        assertTrue(background.awaitTermination(10, TimeUnit.SECONDS));

        check(members.get(0).instances(), instanceIds, nodeIds);
    }

    /** One tick of a member's lease thread; records what it now believes it holds. */
    private void leaseRound(int member, ClusterStore cluster, List<Integer> wanted, boolean releaseOne) {
        Map<Integer, Long> held = new HashMap<>(cluster.renew(LEASE_TTL).held());
        believe(member, held);
        Map<Integer, Long> taken = cluster.acquire(wanted, LEASE_TTL);
        believe(member, taken);
        taken.forEach((shard, epoch) -> publishedEpochs.merge(shard, epoch, Math::max));
        taken.forEach((shard, epoch) -> {
            if (epoch > 1) {
                takeovers.incrementAndGet();
            }
        });
        held.putAll(taken);
        if (releaseOne && !held.isEmpty()) {
            cluster.release(List.of(held.keySet().iterator().next()));
        }
    }

    private void believe(int member, Map<Integer, Long> held) {
        held.forEach((shard, epoch) -> {
            Integer previous = believedOwner.putIfAbsent(shard + "@" + epoch, member);
            if (previous != null && previous != member) {
                violations.add("members " + previous + " and " + member + " both held shard " + shard + " at epoch "
                        + epoch);
            }
        });
    }

    /** A worker: claims random instances, settles some of its earlier claims, forgets none it still thinks it has. */
    private void work(int member, InstanceStore instances, List<Long> ids, Set<Long> inFlight, Random random,
                      AtomicBoolean stop) {
        Deque<Instance> pending = new ArrayDeque<>();
        while (!stop.get()) {
            // A few of the oldest claims per round: calls that last, some beyond their lease.
            int settleNow = Math.min(pending.size(), random.nextInt(3) + Math.max(0, pending.size() - 30));
            for (int i = 0; i < settleNow; i++) {
                Instance claimed = pending.pollFirst();
                settle(instances, claimed, random);
                inFlight.remove(claimed.id());
            }
            Set<Long> batch = new LinkedHashSet<>();
            for (int i = 0; i < 8; i++) {
                long id = ids.get(random.nextInt(ids.size()));
                if (inFlight.add(id)) {
                    batch.add(id); // reserved: no other worker of this member claims it meanwhile
                }
            }
            Set<Long> unclaimed = new LinkedHashSet<>(batch);
            Map<Integer, Long> seenBefore = Map.copyOf(publishedEpochs);
            for (Instance row : instances.claimBatch(batch, T0)) {
                if (seenBefore.getOrDefault(row.shard(), 0L) > row.claimEpoch()) {
                    violations.add("claimed " + row.id() + " under epoch " + row.claimEpoch() + " of shard "
                            + row.shard() + " after epoch " + seenBefore.get(row.shard()) + " had been acquired");
                }
                claims.computeIfAbsent(ClaimKey.of(row), k -> new AtomicInteger()).incrementAndGet();
                claimLog.add(new Claim(member, row));
                pending.addLast(row); // settled on a later round, perhaps after its shard moved
                unclaimed.remove(row.id());
            }
            inFlight.removeAll(unclaimed);
        }
        // Claims still pending stay DISPATCHING, as those of a member that stopped: the ledger expects them.
    }

    private void settle(InstanceStore instances, Instance claimed, Random random) {
        long id = claimed.id();
        long seenBefore = publishedEpochs.getOrDefault(claimed.shard(), 0L);
        int choice = random.nextInt(100);
        boolean applied;
        if (choice < 45) {
            applied = instances.retry(id, T0.plusSeconds(1), "again");
        } else if (choice < 80) {
            applied = instances.release(id);
        } else if (choice < 82) {
            applied = instances.markAllSucceeded(List.of(id)).contains(id);
        } else if (choice < 84) {
            applied = instances.markFailed(id, "failed");
        } else if (choice < 86) {
            applied = instances.markCallStarted(List.of(id), T0).contains(id) && instances.markInterrupted(id, "cut");
        } else {
            applied = instances.markCallStarted(List.of(id), T0).contains(id)
                    && instances.retry(id, T0.plusSeconds(1), "again");
        }
        if (applied) {
            settles.computeIfAbsent(ClaimKey.of(claimed), k -> new AtomicInteger()).incrementAndGet();
            if (seenBefore > claimed.claimEpoch()) {
                violations.add("settled " + id + ", claimed under epoch " + claimed.claimEpoch() + " of shard "
                        + claimed.shard() + ", after epoch " + seenBefore + " had been acquired");
            }
        } else {
            refusedSettles.incrementAndGet();
        }
    }

    /** A member's inherited claims: released or interrupted by the new owner. */
    private void settleForeign(InstanceStore instances, Random random, AtomicBoolean stop) {
        while (!stop.get()) {
            for (ForeignClaim claim : instances.findForeignClaims(0, 50)) {
                Instance row = claim.instance();
                boolean applied = random.nextInt(100) < 90
                        ? instances.releaseForeign(row.id(), row.claimEpoch())
                        : instances.interruptForeign(row.id(), row.claimEpoch(), "its claimant lost the shard");
                if (applied) {
                    settles.computeIfAbsent(ClaimKey.of(row), k -> new AtomicInteger()).incrementAndGet();
                    foreignSettles.incrementAndGet();
                }
            }
        }
    }

    private void check(InstanceStore instances, List<Long> instanceIds, List<Integer> nodeIds) {
        Map<Long, Integer> outstanding = new HashMap<>();
        Set<ClaimKey> keys = new LinkedHashSet<>(claims.keySet());
        keys.addAll(settles.keySet());
        for (ClaimKey key : keys) {
            int claimed = count(claims, key);
            int settled = count(settles, key);
            if (claimed - settled < 0 || claimed - settled > 1) {
                violations.add(key + " claimed " + claimed + " times, settled " + settled + " times");
            }
            outstanding.merge(key.instanceId(), claimed - settled, Integer::sum);
        }
        for (long id : instanceIds) {
            Instance row = instances.get(id).orElseThrow();
            int expected = row.status() == InstanceStatus.DISPATCHING ? 1 : 0;
            if (outstanding.getOrDefault(id, 0) != expected) {
                violations.add("instance " + id + " is " + row.status() + " with " + outstanding.getOrDefault(id, 0)
                        + " claims not settled");
            }
        }
        for (Claim claim : claimLog) {
            Instance row = claim.row();
            Integer believer = believedOwner.get(row.shard() + "@" + row.claimEpoch());
            if (believer == null || believer != claim.member() || row.claimNode() != nodeIds.get(claim.member())) {
                violations.add("member " + claim.member() + " (node " + nodeIds.get(claim.member()) + ") claimed "
                        + row.id() + " under shard " + row.shard() + " epoch " + row.claimEpoch() + ", node "
                        + row.claimNode() + ", which member " + believer + " held");
            }
        }
        System.out.printf("%s: %d claims, %d settles (%d foreign), %d settles refused, %d takeovers,"
                        + " %d left DISPATCHING%n", getClass().getSimpleName(), claimLog.size(),
                settles.values().stream().mapToInt(AtomicInteger::get).sum(), foreignSettles.get(),
                refusedSettles.get(), takeovers.get(), outstanding.values().stream().mapToInt(i -> i).sum());
        if (!violations.isEmpty()) {
            fail(violations.size() + " violations, first ones:\n  " + String.join("\n  ",
                    violations.stream().limit(20).toList()));
        }
        assertTrue(takeovers.get() > 0, "no shard changed hands: the run proved nothing");
        assertTrue(refusedSettles.get() > 0, "no settle was refused: no claim outlived its lease");
        assertTrue(foreignSettles.get() > 0, "no foreign claim was settled");
        assertTrue(claimLog.size() > 1_000, "too few claims to mean anything: " + claimLog.size());
    }

    private static int count(Map<ClaimKey, AtomicInteger> counts, ClaimKey key) {
        AtomicInteger n = counts.get(key);
        return n == null ? 0 : n.get();
    }

    /** Jobs on {@link #SHARDS} distinct shards, their instances WAITING; fills {@code shards}. */
    private List<Long> createInstances(JdbcStores stores, List<Integer> shards) {
        Map<Integer, List<Long>> jobsByShard = new HashMap<>();
        long jobId = 1;
        while (shards.size() < SHARDS || jobsByShard.values().stream().anyMatch(j -> j.size() < JOBS_PER_SHARD)) {
            int shard = Shards.of(++jobId, stores.cluster().shardCount());
            if (!shards.contains(shard) && shards.size() < SHARDS) {
                shards.add(shard);
            }
            if (shards.contains(shard) && jobsByShard.computeIfAbsent(shard, s -> new ArrayList<>()).size()
                    < JOBS_PER_SHARD) {
                jobsByShard.get(shard).add(jobId);
            }
        }
        List<Long> instanceIds = new ArrayList<>();
        long instanceId = 1_000_000;
        for (List<Long> jobIds : jobsByShard.values()) {
            for (long id : jobIds) {
                stores.jobs().insert(new NewJob(id, "stress", ScheduleSpec.api(), Target.handler("h"), null, true,
                        MisfirePolicy.SKIP, RetryPolicy.NONE, DeliveryPolicy.DEFAULT, JobOperations.DEFAULT, T0));
                List<NewInstance> batch = new ArrayList<>();
                for (int i = 0; i < INSTANCES_PER_JOB; i++) {
                    batch.add(new NewInstance(++instanceId, id, T0.plusMillis(i), null));
                    instanceIds.add(instanceId);
                }
                assertTrue(stores.instances().createInstancesAndAdvanceJob(
                        new JobAdvance(id, 0, T0, null, batch, false, null)).advanced());
            }
        }
        assertEquals(SHARDS * JOBS_PER_SHARD * INSTANCES_PER_JOB, instanceIds.size());
        assertEquals(SHARDS, shards.size());
        return instanceIds;
    }
}
