package dev.tickwheel.example.reminders;

import dev.tickwheel.server.RunSpec;
import dev.tickwheel.server.TickwheelServer;
import java.time.Instant;
import java.util.NoSuchElementException;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Schedules and cancels reminders. Each method is one transaction on the application's DataSource, and Tickwheel's
 * writes join it: the reminder row and its run commit together or not at all, and the run is armed only after the
 * commit (on this instance or the one owning its shard).
 */
@Service
public class ReminderService {

    private final ReminderRepository reminders;
    private final TickwheelServer tickwheel;

    public ReminderService(ReminderRepository reminders, TickwheelServer tickwheel) {
        this.reminders = reminders;
        this.tickwheel = tickwheel;
    }

    /** Stores a reminder and its run, due at {@code dueAt} (one in the past is sent at once). */
    @Transactional
    public Reminder schedule(String recipient, String text, Instant dueAt) {
        long id = reminders.insert(recipient, text, dueAt);
        tickwheel.jobs().run(remindersJobId(), new RunSpec(Reminder.runKey(id), null, dueAt, Long.toString(id)));
        return reminders.find(id).orElseThrow();
    }

    /** Cancels a scheduled reminder and its run; false if it was not scheduled any more. */
    @Transactional
    public boolean cancel(long id) {
        if (!reminders.markCancelled(id)) {
            return false;
        }
        tickwheel.instances().cancelByKey(remindersJobId(), Reminder.runKey(id));
        return true;
    }

    private long remindersJobId() {
        return tickwheel.jobs().findByName(ReminderApplication.REMINDERS_JOB).orElseThrow(() ->
                new NoSuchElementException("the job '" + ReminderApplication.REMINDERS_JOB + "' is not declared yet"))
                .id();
    }
}
