package dev.tickwheel.bench;

import dev.tickwheel.bench.peer.Peer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * Runs a child measurement for every peer, {@code forks} times each, round-robin (fork 1 of every peer, then fork 2
 * ...), so that slow drifts of a noisy machine spread over all peers instead of landing on one.
 *
 * <p>Not thread-safe; one run at a time.
 */
final class ForkRunner {

    private ForkRunner() {
    }

    /**
     * @param childArgs the child's arguments for (peer, fork index)
     * @return one result per peer, in the order of {@code peers}
     */
    static Map<Peer, ForkResult> run(String measure, Class<?> main, List<Peer> peers, int forks, Duration timeout,
                                     BiFunction<Peer, Integer, List<String>> childArgs) {
        Map<Peer, ForkResult> results = new LinkedHashMap<>();
        peers.forEach(p -> results.put(p, new ForkResult(p.id())));
        for (int fork = 0; fork < forks; fork++) {
            for (Peer peer : peers) {
                long start = System.nanoTime();
                Map<String, String> result = ChildJvm.run(main, childArgs.apply(peer, fork), timeout);
                results.get(peer).addFork(result);
                System.err.printf("[%s] %-16s fork %d/%d  %5.1f s  %s%n", measure, peer.id(), fork + 1, forks,
                        (System.nanoTime() - start) / 1e9, result);
            }
        }
        return results;
    }
}
