package dev.tickwheel.bench.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import tech.powerjob.server.common.timewheel.holder.InstanceTimeWheelService;

/**
 * The two starting points of PowerJob's static CARGO between iterations: {@code powerjob-service} keeps the table it
 * grew, {@code powerjob-service-fresh} starts again from a fresh JVM's empty map.
 */
class PowerJobServiceTest {

    private static final int INSTANCES = 5_000;

    @Test
    void freshCloseGivesCargoBackAFreshJvmsTableAndItStillWorks() throws Exception {
        Object[] grown = scheduleCancelAndClose(new PowerJobService(true), 1_000_000);
        assertNull(grown, "the reset map has no table, as new ConcurrentHashMap<>() has none");
        assertEquals(0, sizeCtl(), "and no size hint: the next put allocates the default table");

        // The map works after the reset: schedule and cancel by ID again, on the same static CARGO.
        PowerJobService again = new PowerJobService(true);
        again.schedule(2_000_001, 30_000, () -> { });
        assertTrue(again.cancel(2_000_001), "cancel by ID finds the instance in the reset map");
        again.close();
    }

    @Test
    void plainCloseKeepsTheGrownTable() throws Exception {
        Object[] grown = scheduleCancelAndClose(new PowerJobService(false), 3_000_000);
        assertNotNull(grown);
        assertTrue(grown.length >= INSTANCES, "clear() keeps the table grown for " + INSTANCES + ": " + grown.length);
        new PowerJobService(true).close(); // leave CARGO as a fresh JVM's for whoever runs next
    }

    /** @return CARGO's table after the contender closed */
    private static Object[] scheduleCancelAndClose(PowerJobService service, long firstId) throws Exception {
        for (long id = firstId; id < firstId + INSTANCES; id++) {
            service.schedule(id, 30_000, () -> { }); // over 1 s: PowerJob puts it in CARGO
        }
        for (long id = firstId; id < firstId + INSTANCES; id++) {
            assertTrue(service.cancel(id), "instance " + id);
        }
        service.close();
        assertTrue(cargo().isEmpty());
        return (Object[]) field("table").get(cargo());
    }

    private static int sizeCtl() throws Exception {
        return field("sizeCtl").getInt(cargo());
    }

    private static ConcurrentHashMap<?, ?> cargo() throws Exception {
        Field field = InstanceTimeWheelService.class.getDeclaredField("CARGO");
        field.setAccessible(true);
        return (ConcurrentHashMap<?, ?>) field.get(null);
    }

    private static Field field(String name) throws Exception {
        Field field = ConcurrentHashMap.class.getDeclaredField(name);
        field.setAccessible(true);
        return field;
    }
}
