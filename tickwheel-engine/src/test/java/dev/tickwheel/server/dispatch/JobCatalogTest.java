package dev.tickwheel.server.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.Mockito.mock;

import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.JobOperations;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.store.JobStore;
import dev.tickwheel.time.MisfirePolicy;
import dev.tickwheel.time.ScheduleSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Stamped copies of jobs: served until an invalidation of their job (or of everything) comes after the stamp. */
class JobCatalogTest {

    private static final Instant T0 = Instant.parse("2031-01-02T03:04:05Z");

    private final JobCatalog catalog = new JobCatalog(mock(JobStore.class), Duration.ofSeconds(10));

    static Job job(long id, long version) {
        return new Job(id, "job " + id, ScheduleSpec.api(), Target.handler("h"), "{\"v\":" + version + "}", true,
                MisfirePolicy.SKIP, RetryPolicy.NONE, DeliveryPolicy.DEFAULT, JobOperations.DEFAULT, null, T0, T0,
                version);
    }

    @Test
    void ifCurrent_nothingInvalidatedSinceTheStamp_servesTheCopy() {
        Job job = job(41, 3);
        JobCatalog.Stamped stamped = catalog.stamp(job);

        assertEquals(Optional.of(job), catalog.ifCurrent(stamped));
        assertEquals(Optional.of(job), catalog.ifCurrent(stamped), "reading it does not use it up");
    }

    @Test
    void ifCurrent_itsJobInvalidatedAfterTheStamp_refusesTheCopy() {
        JobCatalog.Stamped stamped = catalog.stamp(job(41, 3));

        catalog.invalidate(41);

        assertNull(catalog.ifCurrent(stamped), "a change invalidated after the stamp: the copy may be stale");
    }

    @Test
    void ifCurrent_stampedAfterTheInvalidation_servesTheCopy() {
        catalog.invalidate(41);
        Job changed = job(41, 4);

        assertEquals(Optional.of(changed), catalog.ifCurrent(catalog.stamp(changed)));
    }

    @Test
    void ifCurrent_afterInvalidateAll_refusesEveryCopyStampedBefore() {
        JobCatalog.Stamped first = catalog.stamp(job(41, 3));
        JobCatalog.Stamped second = catalog.stamp(job(977, 0));

        catalog.invalidateAll();

        assertNull(catalog.ifCurrent(first));
        assertNull(catalog.ifCurrent(second));
    }

    /** Striped epochs: a change of one job refuses the copies of few others, not of every job. */
    @Test
    void ifCurrent_otherJobsInvalidated_refusesFewOfTheCopies() {
        long firstId = 7_300_000_000_000_000L; // snowflake-sized ids, consecutive as one node mints them
        int jobs = 200;
        JobCatalog.Stamped[] stamped = new JobCatalog.Stamped[jobs];
        for (int i = 0; i < jobs; i++) {
            stamped[i] = catalog.stamp(job(firstId + i, 0));
        }

        catalog.invalidate(firstId);

        int refused = 0;
        for (int i = 1; i < jobs; i++) {
            refused += catalog.ifCurrent(stamped[i]) == null ? 1 : 0;
        }
        assertNull(catalog.ifCurrent(stamped[0]));
        assertTrue(refused <= 2, refused + " of " + (jobs - 1) + " copies of other jobs refused");
    }

    @Test
    void stamp_null_isRefused() {
        assertThrows(NullPointerException.class, () -> new JobCatalog.Stamped(null, 0));
    }
}
