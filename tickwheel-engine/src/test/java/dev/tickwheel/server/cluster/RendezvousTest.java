package dev.tickwheel.server.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Balance, minimal movement and determinism of the shard assignment. */
class RendezvousTest {

    private static final int SHARDS = 256;

    @Test
    void assign_threeMembers_eachWithinThreeStandardDeviations() {
        // A member's count is Binomial(256, 1/3): mean 85.3, standard deviation sqrt(256 * 1/3 * 2/3) = 7.54. The
        // ids 0, 1, 2 are what the store mints first, so this is the common three-node cluster: within mean ± 3 sd,
        // i.e. [63, 107], which a fair hash misses for a given set with probability under 1 %.
        int[] counts = counts(Rendezvous.assign(List.of(0, 1, 2), SHARDS), List.of(0, 1, 2));
        for (int count : counts) {
            assertTrue(count >= 63 && count <= 107, "counts " + java.util.Arrays.toString(counts));
        }
    }

    @Test
    void assign_randomMemberSets_eachWithinFiveStandardDeviations() {
        // Over 2 000 seeded sets of 2..8 members (about 10 000 counts), each count within mean ± 5 sd of
        // Binomial(256, 1/n): a fair hash breaks that bound once in 1.7 million counts, a biased one at once.
        Random random = new Random(20_261_123);
        for (int trial = 0; trial < 2_000; trial++) {
            List<Integer> members = randomMembers(random, 2 + random.nextInt(7));
            double p = 1.0 / members.size();
            double mean = SHARDS * p;
            double sd = Math.sqrt(SHARDS * p * (1 - p));
            int[] counts = counts(Rendezvous.assign(members, SHARDS), members);
            for (int count : counts) {
                assertTrue(Math.abs(count - mean) <= 5 * sd,
                        "members " + members + " counts " + java.util.Arrays.toString(counts));
            }
        }
    }

    @Test
    void assign_manyRandomTriples_spreadLikeAFairCoin() {
        // The variance of the counts over 3 000 triples estimates the binomial's 56.9 to within a few percent; a hash
        // that favours some ids (the lowest, say) inflates it. And the lowest id of each triple gets a third on average.
        Random random = new Random(7);
        double sumSquares = 0;
        long lowestIdShards = 0;
        int n = 0;
        for (int trial = 0; trial < 1_000; trial++) {
            List<Integer> members = randomMembers(random, 3);
            int[] counts = counts(Rendezvous.assign(members, SHARDS), members);
            for (int count : counts) {
                sumSquares += (count - SHARDS / 3.0) * (count - SHARDS / 3.0);
                n++;
            }
            lowestIdShards += counts[members.indexOf(Collections.min(members))];
        }
        double variance = sumSquares / n;
        assertTrue(Math.abs(variance - SHARDS * (1 / 3.0) * (2 / 3.0)) < 0.15 * 56.9, "variance " + variance);
        double lowestShare = lowestIdShards / (1_000.0 * SHARDS);
        assertTrue(Math.abs(lowestShare - 1 / 3.0) < 0.01, "share of the lowest id " + lowestShare);
    }

    @Test
    void assign_memberJoins_onlyShardsMovingToItMove() {
        Random random = new Random(11);
        for (int trial = 0; trial < 500; trial++) {
            List<Integer> members = randomMembers(random, 1 + random.nextInt(6));
            int joiner = newId(random, members);
            int[] before = Rendezvous.assign(members, SHARDS);
            List<Integer> after = new ArrayList<>(members);
            after.add(joiner);
            int[] afterJoin = Rendezvous.assign(after, SHARDS);
            int moved = 0;
            for (int shard = 0; shard < SHARDS; shard++) {
                if (afterJoin[shard] != before[shard]) {
                    assertEquals(joiner, afterJoin[shard], "shard " + shard + " moved, but not to the joiner");
                    moved++;
                }
            }
            assertTrue(moved > 0, "the joiner got nothing: " + after);
        }
    }

    @Test
    void assign_memberLeaves_onlyItsShardsMove() {
        Random random = new Random(13);
        for (int trial = 0; trial < 500; trial++) {
            List<Integer> members = randomMembers(random, 2 + random.nextInt(6));
            int leaver = members.get(random.nextInt(members.size()));
            int[] before = Rendezvous.assign(members, SHARDS);
            List<Integer> after = new ArrayList<>(members);
            after.remove(Integer.valueOf(leaver));
            int[] afterLeave = Rendezvous.assign(after, SHARDS);
            for (int shard = 0; shard < SHARDS; shard++) {
                if (before[shard] != leaver) {
                    assertEquals(before[shard], afterLeave[shard], "shard " + shard + " moved though its owner stayed");
                } else {
                    assertNotEquals(leaver, afterLeave[shard]);
                }
            }
        }
    }

    @Test
    void assign_anyOrderOrDuplicates_sameAnswer() {
        List<Integer> members = new ArrayList<>(List.of(5, 900, 17, 3, 42));
        int[] expected = Rendezvous.assign(members, SHARDS);
        Random random = new Random(3);
        for (int i = 0; i < 20; i++) {
            Collections.shuffle(members, random);
            List<Integer> withDuplicates = new ArrayList<>(members);
            withDuplicates.add(members.get(0));
            assertArrayEquals(expected, Rendezvous.assign(members, SHARDS));
            assertArrayEquals(expected, Rendezvous.assign(withDuplicates, SHARDS));
            assertArrayEquals(expected, Rendezvous.assign(Set.copyOf(members), SHARDS));
        }
    }

    @Test
    void assign_pinnedValues_sameOnEveryJvmAndVersion() {
        // Changing these changes every member's shards: members of two versions would disagree during a rolling
        // upgrade. The values are the worked example of Rendezvous's class comment.
        assertEquals(0, Rendezvous.assign(List.of(0, 1, 2), SHARDS)[0]);
        assertEquals(3, Rendezvous.assign(List.of(0, 1, 2, 3), SHARDS)[0]);
        assertEquals(1, Rendezvous.assign(List.of(0, 1, 2, 3), SHARDS)[7]);
        assertEquals(3, Rendezvous.assign(List.of(0, 2, 3), SHARDS)[7]);
        assertEquals(-2_152_535_657_050_944_081L, Rendezvous.weight(0, 0));
        assertEquals(1_891_136_068_850_524_992L, Rendezvous.weight(7, 1));
        int[] owners = Rendezvous.assign(List.of(0, 1, 2), SHARDS);
        assertEquals("{0=78, 1=84, 2=94}", Rendezvous.describe(owners));
    }

    @Test
    void weight_distinctMembersOfAShard_neverTie() {
        for (int shard = 0; shard < SHARDS; shard++) {
            Set<Long> weights = new HashSet<>();
            for (int node = 0; node < 1024; node++) {
                assertTrue(weights.add(Rendezvous.weight(shard, node)), "tie at shard " + shard + " node " + node);
            }
        }
    }

    @Test
    void assign_badArguments_throwNamingThem() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Rendezvous.assign(List.of(), SHARDS))
                .getMessage().contains("nodeIds"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Rendezvous.assign(List.of(1), 0))
                .getMessage().contains("shardCount must be positive: 0"));
    }

    private static int[] counts(int[] owners, List<Integer> members) {
        int[] counts = new int[members.size()];
        for (int owner : owners) {
            counts[members.indexOf(owner)]++;
        }
        return counts;
    }

    private static List<Integer> randomMembers(Random random, int size) {
        List<Integer> members = new ArrayList<>();
        while (members.size() < size) {
            int id = random.nextInt(1024);
            if (!members.contains(id)) {
                members.add(id);
            }
        }
        return members;
    }

    private static int newId(Random random, List<Integer> members) {
        int id;
        do {
            id = random.nextInt(1024);
        } while (members.contains(id));
        return id;
    }
}
