package dev.tickwheel.example.reminders;

import dev.tickwheel.server.JobSpec;
import dev.tickwheel.server.job.RetryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.spring.JobDefinition;
import dev.tickwheel.time.ScheduleSpec;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * A reminder service: {@code POST /reminders} stores a reminder and schedules its sending in one transaction,
 * {@code DELETE /reminders/{id}} cancels both, {@link ReminderSender} sends it when due. Run it with
 * {@code mvn -pl examples/reminder-service spring-boot:run} (see the README).
 */
@SpringBootApplication
public class ReminderApplication {

    /** The job every reminder is a run of: API-triggered, its runs keyed by reminder, retried three times. */
    static final String REMINDERS_JOB = "reminders";

    public static void main(String[] args) {
        SpringApplication.run(ReminderApplication.class, args);
    }

    /** Declared at start-up (created, or brought up to date by name) before scheduling begins. */
    @Bean
    JobDefinition remindersJob() {
        return new JobDefinition(JobSpec.of(REMINDERS_JOB, ScheduleSpec.api(), Target.handler(ReminderSender.HANDLER))
                .withRetry(new RetryPolicy(3, 5_000)));
    }
}
