package dev.tickwheel.server.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class JobLabelsTest {

    @Test
    void of_pastTheLimit_sharesOther() {
        JobLabels labels = new JobLabels(2);
        assertEquals("7", labels.of(7));
        assertEquals("9", labels.of(9));
        assertEquals(JobLabels.OTHER, labels.of(11));
        assertEquals("7", labels.of(7), "a seen id keeps its own value");
        assertEquals(JobLabels.OTHER, labels.of(11));
    }

    @Test
    void callEnded_manyJobs_boundedSeries() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        DispatchMetrics metrics = new DispatchMetrics(registry);
        for (long job = 1; job <= 1_000; job++) {
            metrics.callEnded(job, true, Duration.ofMillis(3));
        }
        assertEquals(JobLabels.DEFAULT_LIMIT + 1, registry.find("tickwheel.job.calls").timers().size());
        assertEquals(1_000 - JobLabels.DEFAULT_LIMIT,
                registry.get("tickwheel.job.calls").tag("job", JobLabels.OTHER).timer().count());
    }
}
