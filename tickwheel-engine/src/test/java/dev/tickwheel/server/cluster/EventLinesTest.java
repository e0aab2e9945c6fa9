package dev.tickwheel.server.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The bus's text format, and the channel names derived from schemas. */
class EventLinesTest {

    @Test
    void encodeDecode_everyEventType_roundTrips() {
        List<ClusterEvent> events = List.of(
                new ClusterEvent.Arm(7_301_234_567_890L, 7_300_000_000_001L, 17, 1_790_000_000_000L, null),
                new ClusterEvent.Arm(Long.MIN_VALUE, Long.MAX_VALUE, Integer.MAX_VALUE, -1, 9),
                new ClusterEvent.Cancelled(1, 2),
                new ClusterEvent.Rescheduled(3, 4, 255, 1_790_000_000_123L, null),
                new ClusterEvent.Rescheduled(3, 4, 255, 1_790_000_000_123L, 0),
                new ClusterEvent.JobChanged(Long.MAX_VALUE),
                new ClusterEvent.Gathered(Long.MIN_VALUE),
                new ClusterEvent.CallbackSettled(Long.MAX_VALUE));
        for (ClusterEvent event : events) {
            String line = EventLines.encode(-42, event);
            assertEquals(Optional.of(new EventLines.Line(-42, event)), EventLines.decode(line), line);
        }
        assertEquals("8431773001 arm 5 6 8 7",
                EventLines.encode(8_431_773_001L, new ClusterEvent.Arm(5, 6, 8, 7, null)));
        assertEquals("1 arm 5 6 8 7 9", EventLines.encode(1, new ClusterEvent.Arm(5, 6, 8, 7, 9)),
                "an instance's own priority is a seventh field; a line without it (as members before priorities"
                        + " sent) means its job's");
        assertEquals("1 cancelled 5 6", EventLines.encode(1, new ClusterEvent.Cancelled(5, 6)));
        assertEquals("1 job 6", EventLines.encode(1, new ClusterEvent.JobChanged(6)));
        assertEquals("1 moved 5 6 8 7", EventLines.encode(1, new ClusterEvent.Rescheduled(5, 6, 8, 7, null)));
        assertEquals("1 moved 5 6 8 7 2", EventLines.encode(1, new ClusterEvent.Rescheduled(5, 6, 8, 7, 2)));
        assertEquals("1 gathered 6", EventLines.encode(1, new ClusterEvent.Gathered(6)));
        assertEquals("1 settled 5", EventLines.encode(1, new ClusterEvent.CallbackSettled(5)));
    }

    @Test
    void encode_resync_isRefused() {
        assertThrows(IllegalArgumentException.class, () -> EventLines.encode(1, new ClusterEvent.Resync()));
    }

    @Test
    void decode_linesOfAnotherVersionOrGarbage_areEmpty() {
        for (String line : List.of("", "1", "1 job", "1 job x", "x job 1", "1 job 1 2", "1 arm 1 2", "1 resync",
                "1 moved 3 4", "1 cancelled 1", "99999999999999999999 job 1", "1 arm 1 2 3",
                "1 moved 1 2 99999999999 3", "1 gathered", "1 gathered 1 2", "1 arm 1 2 3 4 x", "1 arm 1 2 3 4 5 6")) {
            assertEquals(Optional.empty(), EventLines.decode(line), "'" + line + "'");
        }
    }

    @Test
    void payloads_manyEvents_packedUnder8000BytesInOrder() {
        Random random = new Random(5);
        List<ClusterEvent> events = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            events.add(switch (i % 3) {
                case 0 -> new ClusterEvent.Arm(random.nextLong(), random.nextLong(), random.nextInt(),
                        random.nextLong(), random.nextBoolean() ? null : random.nextInt(10));
                case 1 -> new ClusterEvent.Cancelled(random.nextLong(), random.nextLong());
                default -> new ClusterEvent.JobChanged(random.nextLong());
            });
        }

        List<String> payloads = EventLines.payloads(Long.MIN_VALUE, events);

        List<ClusterEvent> decoded = new ArrayList<>();
        for (String payload : payloads) {
            assertTrue(payload.getBytes(StandardCharsets.UTF_8).length <= EventLines.MAX_PAYLOAD_BYTES);
            for (String line : payload.split("\n")) {
                decoded.add(EventLines.decode(line).orElseThrow().event());
            }
        }
        assertEquals(events, decoded);
        // As few as fit: each payload but the last was cut only because the next line (at most 100 bytes with its
        // newline: four longs, an int, the type and separators) did not fit.
        for (String payload : payloads.subList(0, payloads.size() - 1)) {
            assertTrue(payload.length() > EventLines.MAX_PAYLOAD_BYTES - 100, "a payload of " + payload.length());
        }
        assertEquals(List.of(), EventLines.payloads(1, List.of()));
        assertEquals(List.of("1 job 2"), EventLines.payloads(1, List.of(new ClusterEvent.JobChanged(2))));
    }

    @Test
    void channelName_shortSchema_isPrefixed_longOneIsCutAndHashed() {
        assertEquals("tw_bus_tickwheel", PgClusterBus.channelName("tickwheel"));
        String long1 = "a".repeat(60) + "1";
        String long2 = "a".repeat(60) + "2";
        String channel1 = PgClusterBus.channelName(long1);
        assertEquals(63, channel1.getBytes(StandardCharsets.UTF_8).length);
        assertTrue(channel1.startsWith("tw_bus_aaaa"));
        assertTrue(!channel1.equals(PgClusterBus.channelName(long2)), "schemas differing at the end stay apart");
        String multibyte = PgClusterBus.channelName("é".repeat(40)); // 80 bytes: cut between characters
        assertTrue(multibyte.getBytes(StandardCharsets.UTF_8).length <= 63);
        assertTrue(multibyte.matches("tw_bus_(é)+_[0-9a-f]{8}"), multibyte);
    }

    @Test
    void quoteIdentifier_quotesDoubled() {
        assertEquals("\"a\"\"B c\"", PgClusterBus.quoteIdentifier("a\"B c"));
    }
}
