package dev.tickwheel.bench.ceiling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tickwheel.server.schedule.InstanceLoader;
import java.lang.reflect.Field;
import org.junit.jupiter.api.Test;

/**
 * The ceiling's batch sizes are the engine's: two of them are package-private constants of the dispatcher, read here
 * by reflection, so that a change there fails this test instead of leaving the ceiling measuring other batches.
 */
class CeilingSettingsTest {

    @Test
    void engine_batchSizes_matchTheEngines() throws ReflectiveOperationException {
        CeilingSettings engine = CeilingSettings.engine(1);

        assertEquals(InstanceLoader.DEFAULT_PAGE_SIZE, engine.pageSize());
        assertEquals(constant("dev.tickwheel.server.dispatch.ClaimBatcher", "DEFAULT_MAX_BATCH"), engine.claimBatch());
        assertEquals(constant("dev.tickwheel.server.dispatch.OutcomeRecorder", "DEFAULT_MAX_BATCH"),
                engine.settleBatch());
    }

    @Test
    void new_batchOverStatementLimit_isRefused() {
        assertThrows(IllegalArgumentException.class, () -> new CeilingSettings(10, 500, 1_001, 1_000));
        assertThrows(IllegalArgumentException.class, () -> new CeilingSettings(0, 500, 500, 1_000));
    }

    private static int constant(String className, String name) throws ReflectiveOperationException {
        Field field = Class.forName(className).getDeclaredField(name);
        field.setAccessible(true);
        return field.getInt(null);
    }
}
