package dev.tickwheel.example.reminders;

import java.time.Instant;

/**
 * A reminder as the application stores it.
 *
 * @param status     SCHEDULED, SENT or CANCELLED
 * @param sentByNode the Tickwheel member that sent it (a cluster shares the work), or null
 */
public record Reminder(long id, String recipient, String text, Instant dueAt, String status, Instant sentAt,
                       Integer sentByNode) {

    /** The caller's key of its Tickwheel run: one run per reminder, however often the scheduling is retried. */
    static String runKey(long reminderId) {
        return "reminder-" + reminderId;
    }
}
