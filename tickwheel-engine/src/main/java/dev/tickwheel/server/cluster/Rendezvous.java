package dev.tickwheel.server.cluster;

import java.util.Arrays;
import java.util.Collection;
import java.util.Objects;

/**
 * Which live member each shard prefers: rendezvous (highest-random-weight) hashing. Every member computes the same
 * answer from the same member set, with no coordination and no state, so the lease keepers of all members agree on
 * where each shard should go and only ever race for shards whose preferred member is gone.
 *
 * <p>Stateless. {@link #assign} costs O(shards × members): 256 × 10 weights, a few microseconds.
 *
 * <pre>
 * The algorithm (Thaler &amp; Ravishankar, "Using name-based mappings to increase hit rates", 1998):
 *
 *   owner(shard) = the member m with the highest weight(shard, m)
 *   weight(shard, m) = SplitMix64's finalizer applied to (shard &lt;&lt; 32 | m)
 *
 * The finalizer is a bijection of 64-bit values and the key (shard, m) is distinct for distinct members, so two
 * members never tie on one shard; ties are still broken by the lower node id, should the weight ever change.
 *
 * Worked example (weights as signed longs, rounded):
 *
 *   shard 0, members {0, 1, 2}:     weights -2.15e18, -8.00e18, -7.54e18          → owner 0
 *            member 3 joins:        weight(0, 3) = +2.09e18, above all the others → owner 3 (moves to the joiner)
 *   shard 7, members {0, 1, 2, 3}:  weights -4.84e18, +1.89e18, -6.41e18, -0.20e18 → owner 1
 *            member 1 leaves:       the runner-up takes it                        → owner 3
 *
 * What follows from the per-shard maximum:
 *  - minimal movement: a joining member takes exactly the shards on which it outweighs everyone (about 1/n of
 *    them); a leaving member's shards go to their runners-up; no other shard moves;
 *  - balance: each shard's owner is, for a good hash, uniform over the members, so a member's count is
 *    Binomial(shards, 1/n): 256 shards over 3 members gives 85.3 ± 7.5 (one standard deviation);
 *  - determinism: the weight depends only on (shard, node id), so a member restarted under the same node id gets
 *    the same shards, on any JVM.
 * </pre>
 *
 * <p>Caveats: changing {@link #weight} changes the assignment of every shard; members of two versions with different
 * weights would disagree during a rolling upgrade and keep draining shards to each other (safe, since leases fence
 * every move, but churning). RendezvousTest pins the current values.
 */
public final class Rendezvous {

    private Rendezvous() {
    }

    /**
     * The preferred member of every shard.
     *
     * @param nodeIds    the live members' node ids, in any order; duplicates count once
     * @param shardCount shards, at least 1
     * @return a new array: element {@code s} is the node id that shard {@code s} prefers
     * @throws IllegalArgumentException if there are no members or {@code shardCount} is not positive
     */
    public static int[] assign(Collection<Integer> nodeIds, int shardCount) {
        Objects.requireNonNull(nodeIds, "nodeIds");
        if (nodeIds.isEmpty()) {
            throw new IllegalArgumentException("nodeIds must not be empty");
        }
        if (shardCount < 1) {
            throw new IllegalArgumentException("shardCount must be positive: " + shardCount);
        }
        // Sorted, so that the result cannot depend on the collection's iteration order even if the tie-break mattered.
        int[] members = nodeIds.stream().mapToInt(Integer::intValue).distinct().sorted().toArray();
        int[] owners = new int[shardCount];
        for (int shard = 0; shard < shardCount; shard++) {
            int best = members[0];
            long bestWeight = weight(shard, best);
            for (int i = 1; i < members.length; i++) {
                long w = weight(shard, members[i]);
                if (w > bestWeight) { // members are ascending, so on a tie the lower node id stays
                    best = members[i];
                    bestWeight = w;
                }
            }
            owners[shard] = best;
        }
        return owners;
    }

    /** The weight of {@code nodeId} for {@code shard}: SplitMix64's finalizer (Steele et al., 2014) of both. */
    static long weight(int shard, int nodeId) {
        long z = ((long) shard << 32 | (nodeId & 0xffff_ffffL)) + 0x9e37_79b9_7f4a_7c15L;
        z = (z ^ (z >>> 30)) * 0xbf58_476d_1ce4_e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d0_49bb_1331_11ebL;
        return z ^ (z >>> 31);
    }

    /** For log lines: how many shards each member prefers, e.g. {@code {0=86, 1=84, 2=86}}. */
    static String describe(int[] owners) {
        int[] sorted = owners.clone();
        Arrays.sort(sorted);
        StringBuilder out = new StringBuilder("{");
        for (int i = 0; i < sorted.length; ) {
            int j = i;
            while (j < sorted.length && sorted[j] == sorted[i]) {
                j++;
            }
            out.append(out.length() > 1 ? ", " : "").append(sorted[i]).append('=').append(j - i);
            i = j;
        }
        return out.append('}').toString();
    }
}
