package dev.tickwheel.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.bench.e2e.EndToEndRun;
import dev.tickwheel.bench.e2e.OneShotJobs;
import dev.tickwheel.server.job.DeliveryPolicy;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The end-to-end benchmark's {@code --pools} option and the jobs it makes; no benchmark runs here. */
class EndToEndOptionsTest {

    @Test
    void options_poolsDefaultToNone_aNegativeCountIsNamed() {
        assertEquals(0, EndToEndBenchmark.Options.parse(new String[] {"--db", "h2"}).pools);
        assertEquals(4, EndToEndBenchmark.Options.parse(new String[] {"--pools", "4"}).pools);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> EndToEndBenchmark.Options.parse(new String[] {"--pools", "-1"}));
        assertTrue(e.getMessage().contains("--pools") && e.getMessage().contains("-1"), e.getMessage());
    }

    @Test
    void groups_withoutPools_areTheOneGroupOfDefaultJobs() {
        List<OneShotJobs.Group> groups = EndToEndRun.groups(1_000, 0, 8_000, 2_000);

        assertEquals(1, groups.size());
        assertEquals(1_000, groups.get(0).count());
        assertEquals(DeliveryPolicy.DEFAULT, groups.get(0).delivery());
    }

    @Test
    void groups_withPools_spreadEveryJobOverThePools_dueOverTheSameWindow() {
        List<OneShotJobs.Group> groups = EndToEndRun.groups(1_000, 3, 8_000, 2_000);

        assertEquals(List.of(334, 333, 333), groups.stream().map(OneShotJobs.Group::count).toList());
        for (int k = 0; k < 3; k++) {
            OneShotJobs.Group group = groups.get(k);
            assertEquals(EndToEndRun.poolName(k), group.delivery().pool());
            assertEquals(0, group.delivery().maxConcurrent());
            assertEquals(8_000, group.firstDueMs());
            assertEquals(2_000, group.spreadMs());
        }
        assertNull(EndToEndRun.groups(1, 0, 0, 0).get(0).delivery().pool());
        assertThrows(IllegalArgumentException.class,
                () -> new EndToEndRun(2, 1_000, 500, Duration.ofSeconds(1), 8, 3));
    }
}
