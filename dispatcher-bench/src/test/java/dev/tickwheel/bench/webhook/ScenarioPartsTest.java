package dev.tickwheel.bench.webhook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.InstanceStatus;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The harness's arithmetic: matching deliveries to rows, settings on the command line, result lines. */
class ScenarioPartsTest {

    private static final Instant DUE = Instant.ofEpochMilli(1_000_000);

    @Test
    void deliveryCheck_countsLostDuplicateAndStrayKeys() {
        List<Instance> rows = List.of(row(1, 1), row(2, 1), row(3, 2), row(4, 1));
        DeliveryLog first = new DeliveryLog();
        first.append(1, 1, 1_000_010);
        first.append(2, 1, 1_000_020);
        first.append(3, 1, 1_000_030); // an earlier attempt of 3: not its current key, not stray either
        DeliveryLog second = new DeliveryLog();
        second.append(2, 1, 1_000_005); // a repeat of 2's key, earlier than the first receiver's
        second.append(3, 2, 1_000_040);
        second.append(9, 1, 1_000_050); // no such instance
        second.append(4, 2, 1_000_060); // an attempt instance 4 never had

        DeliveryCheck check = new DeliveryCheck(rows, 5, List.of(first, second));

        assertEquals(7, check.deliveries());
        assertEquals(2, check.stray());
        assertEquals(1, check.duplicateKeys());
        assertEquals(2, check.lost()); // instance 4 (its key 4-1 never came) and a fifth row that is missing
        assertEquals(1_000_005, check.firstArrivalMs(rows.get(1)));
        assertEquals(1, check.receiverOf(rows.get(1)));
        assertEquals(1, check.receiverOf(rows.get(2)));
        assertEquals(-1, check.firstArrivalMs(rows.get(3)));
    }

    @Test
    void settings_roundTripThroughOptions_andNameABadOne() {
        ScenarioSettings tiny = ScenarioSettings.tiny();
        assertEquals(tiny, ScenarioSettings.FULL.with(tiny.toOptions()));
        assertEquals(2_000, ScenarioSettings.FULL.with(Map.of("--slow-rate", "2000")).slowRatePerSec());

        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> ScenarioSettings.FULL.with(Map.of("--slow-speed", "1")));
        assertTrue(unknown.getMessage().contains("--slow-speed"), unknown.getMessage());
        IllegalArgumentException notNumber = assertThrows(IllegalArgumentException.class,
                () -> ScenarioSettings.FULL.with(Map.of("--heap-calls", "lots")));
        assertTrue(notNumber.getMessage().contains("--heap-calls"), notNumber.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> ScenarioSettings.FULL.with(Map.of("--stall-mode", "fast")));
    }

    @Test
    void result_lineSaysOkOrEveryViolation_andSummaryGivesMedianAndRange() {
        ScenarioResult ok = new ScenarioResult.Builder(WebhookScenario.SLOW).number("sustainedPerSec", 987.4)
                .number("lost", 0).require(true, "never shown").build();
        ScenarioResult bad = new ScenarioResult.Builder(WebhookScenario.SLOW).number("sustainedPerSec", 958)
                .number("lost", 3).require(false, "lost 3 of 30000").require(false, "1 duplicate keys").build();

        assertEquals("slow: sustainedPerSec=987 lost=0 | ok", ok.toLine());
        assertFalse(bad.passed());
        assertTrue(bad.toLine().endsWith("| FAILED: lost 3 of 30000; 1 duplicate keys"), bad.toLine());
        assertEquals("973 (958-987)", ScenarioResult.medianAndRange(987.4, 958));
        assertTrue(ScenarioResult.summarize(List.of(ok, bad)).contains("lost"));
    }

    private static Instance row(long id, int attempt) {
        return new Instance(id, 7, InstanceStatus.SUCCEEDED, DUE, DUE, DUE, attempt, null, null, null, DUE, DUE, 0, -1, 0, null,
                null, null, null, null, null);
    }
}
