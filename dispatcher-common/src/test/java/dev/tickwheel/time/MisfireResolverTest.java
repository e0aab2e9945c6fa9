package dev.tickwheel.time;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class MisfireResolverTest {

    private final ManualClock clock = new ManualClock(Instant.parse("2026-04-01T12:00:07Z"));
    private final MisfireResolver resolver = new MisfireResolver(3);
    /** Every 2 s; the server was down from 12:00:00, so 12:00:00 .. 12:00:06 were missed. */
    private final CronSchedule every2s = CronSchedule.parse("0/2 * * * * ?", ZoneOffset.UTC);

    private List<Instant> missed() {
        return every2s.triggersIn(Instant.parse("2026-04-01T11:59:59Z"), clock.instant(), 1_000);
    }

    private static Instant at(String iso) {
        return Instant.parse(iso);
    }

    @Test
    void resolve_fireOnceNow_createsOneInstanceForTheLatestMissedTimeDueNow() {
        MisfireResolution resolution = resolver.resolve(every2s, MisfirePolicy.FIRE_ONCE_NOW, missed(), clock.instant());

        assertEquals(List.of(new MissedInstance(at("2026-04-01T12:00:06Z"), clock.instant())),
                resolution.instancesToCreate());
        assertEquals(3, resolution.droppedCount());
        assertEquals(Optional.of(at("2026-04-01T12:00:08Z")), resolution.nextTriggerTime());
    }

    @Test
    void resolve_skip_createsNothingAndResumesInTheFuture() {
        MisfireResolution resolution = resolver.resolve(every2s, MisfirePolicy.SKIP, missed(), clock.instant());

        assertEquals(List.of(), resolution.instancesToCreate());
        assertEquals(4, resolution.droppedCount());
        assertEquals(Optional.of(at("2026-04-01T12:00:08Z")), resolution.nextTriggerTime());
    }

    @Test
    void resolve_fireAllUnderLimit_createsEveryMissedTimeInOrderDueNow() {
        MisfireResolver generous = new MisfireResolver(MisfireResolver.DEFAULT_FIRE_ALL_LIMIT);

        MisfireResolution resolution = generous.resolve(every2s, MisfirePolicy.FIRE_ALL, missed(), clock.instant());

        assertEquals(List.of(
                new MissedInstance(at("2026-04-01T12:00:00Z"), clock.instant()),
                new MissedInstance(at("2026-04-01T12:00:02Z"), clock.instant()),
                new MissedInstance(at("2026-04-01T12:00:04Z"), clock.instant()),
                new MissedInstance(at("2026-04-01T12:00:06Z"), clock.instant())), resolution.instancesToCreate());
        assertEquals(0, resolution.droppedCount());
        assertEquals(Optional.of(at("2026-04-01T12:00:08Z")), resolution.nextTriggerTime());
    }

    @Test
    void resolve_fireAllOverLimit_keepsTheLatestUpToTheLimit() {
        MisfireResolution resolution = resolver.resolve(every2s, MisfirePolicy.FIRE_ALL, missed(), clock.instant());

        assertEquals(List.of(at("2026-04-01T12:00:02Z"), at("2026-04-01T12:00:04Z"), at("2026-04-01T12:00:06Z")),
                resolution.instancesToCreate().stream().map(MissedInstance::expectedTriggerTime).toList());
        assertEquals(1, resolution.droppedCount());
    }

    @Test
    void resolve_unorderedDuplicatedInput_isSortedAndMerged() {
        List<Instant> messy = List.of(at("2026-04-01T12:00:04Z"), at("2026-04-01T12:00:00Z"), at("2026-04-01T12:00:04Z"));

        MisfireResolution resolution = resolver.resolve(every2s, MisfirePolicy.FIRE_ALL, messy, clock.instant());

        assertEquals(List.of(at("2026-04-01T12:00:00Z"), at("2026-04-01T12:00:04Z")),
                resolution.instancesToCreate().stream().map(MissedInstance::expectedTriggerTime).toList());
    }

    @Test
    void resolve_nothingMissed_createsNothingForAnyPolicy() {
        for (MisfirePolicy policy : MisfirePolicy.values()) {
            MisfireResolution resolution = resolver.resolve(every2s, policy, List.of(), clock.instant());

            assertEquals(List.of(), resolution.instancesToCreate(), policy.name());
            assertEquals(0, resolution.droppedCount(), policy.name());
            assertEquals(Optional.of(at("2026-04-01T12:00:08Z")), resolution.nextTriggerTime(), policy.name());
        }
    }

    @Test
    void resolve_missedOneShot_firesOnceNowWithNoNextTrigger() {
        OneShotSchedule oneShot = new OneShotSchedule(at("2026-04-01T11:00:00Z"));

        MisfireResolution resolution = resolver.resolve(oneShot, MisfirePolicy.FIRE_ONCE_NOW,
                oneShot.triggersIn(Instant.EPOCH, clock.instant(), 10), clock.instant());

        assertEquals(List.of(new MissedInstance(oneShot.at(), clock.instant())), resolution.instancesToCreate());
        assertEquals(Optional.empty(), resolution.nextTriggerTime());
    }

    @Test
    void resolve_fixedRateFireAll_nextTriggerStaysOnTheGrid() {
        FixedRateSchedule rate = new FixedRateSchedule(at("2026-04-01T11:59:50Z"), Duration.ofSeconds(5));
        List<Instant> missedRate = rate.triggersIn(Instant.EPOCH, clock.instant(), 100);

        MisfireResolution resolution = resolver.resolve(rate, MisfirePolicy.FIRE_ALL, missedRate, clock.instant());

        assertEquals(List.of(at("2026-04-01T11:59:55Z"), at("2026-04-01T12:00:00Z"), at("2026-04-01T12:00:05Z")),
                resolution.instancesToCreate().stream().map(MissedInstance::expectedTriggerTime).toList());
        assertEquals(1, resolution.droppedCount());
        assertEquals(Optional.of(at("2026-04-01T12:00:10Z")), resolution.nextTriggerTime());
    }

    @Test
    void resolve_fixedDelayFireOnceNow_waitsForCompletionForTheNextTrigger() {
        FixedDelaySchedule delay = new FixedDelaySchedule(Duration.ofSeconds(30));

        MisfireResolution resolution = resolver.resolve(delay, MisfirePolicy.FIRE_ONCE_NOW,
                List.of(at("2026-04-01T11:58:00Z")), clock.instant());

        assertEquals(1, resolution.instancesToCreate().size());
        assertEquals(Optional.empty(), resolution.nextTriggerTime());
    }

    @Test
    void resolve_fixedDelaySkip_resumesOneDelayFromNow() {
        FixedDelaySchedule delay = new FixedDelaySchedule(Duration.ofSeconds(30));

        MisfireResolution resolution = resolver.resolve(delay, MisfirePolicy.SKIP,
                List.of(at("2026-04-01T11:58:00Z")), clock.instant());

        assertEquals(List.of(), resolution.instancesToCreate());
        assertEquals(Optional.of(clock.instant().plusSeconds(30)), resolution.nextTriggerTime());
    }

    @Test
    void resolve_apiInstanceMissed_fireAllCreatesItWithNoNextTrigger() {
        MisfireResolution resolution = resolver.resolve(new ApiSchedule(), MisfirePolicy.FIRE_ALL,
                List.of(at("2026-04-01T11:00:00Z")), clock.instant());

        assertEquals(1, resolution.instancesToCreate().size());
        assertEquals(Optional.empty(), resolution.nextTriggerTime());
    }

    @Test
    void resolve_missedTimeInTheFuture_throwsNamingBothInstants() {
        IllegalArgumentException failure = assertThrows(IllegalArgumentException.class, () -> resolver.resolve(
                every2s, MisfirePolicy.FIRE_ALL, List.of(clock.instant().plusMillis(1)), clock.instant()));

        assertEquals("missed trigger time 2026-04-01T12:00:07.001Z is after now 2026-04-01T12:00:07Z",
                failure.getMessage());
    }

    @Test
    void constructor_zeroLimit_throwsNamingValue() {
        IllegalArgumentException failure = assertThrows(IllegalArgumentException.class, () -> new MisfireResolver(0));

        assertEquals("fireAllLimit must be at least 1, got 0", failure.getMessage());
    }
}
