package dev.tickwheel.example.reminders;

import dev.tickwheel.server.TickwheelServer;
import dev.tickwheel.server.dispatch.JobContext;
import dev.tickwheel.spring.TickwheelHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * Sends a due reminder: Tickwheel calls it through its {@code @Transactional} proxy, so marking the row sent
 * commits before Tickwheel records the call as succeeded. A real sender would pass {@link JobContext#idempotencyKey()}
 * to its mail or push API: a call repeated after a crash then sends once.
 */
@Component
public class ReminderSender {

    static final String HANDLER = "send-reminder";
    private static final Logger log = LoggerFactory.getLogger(ReminderSender.class);

    private final ReminderRepository reminders;
    private final ObjectProvider<TickwheelServer> tickwheel;

    public ReminderSender(ReminderRepository reminders, ObjectProvider<TickwheelServer> tickwheel) {
        this.reminders = reminders;
        this.tickwheel = tickwheel;
    }

    @Transactional
    @TickwheelHandler(HANDLER)
    public void send(JobContext context) {
        long id = Long.parseLong(context.params());
        if (reminders.markSent(id, tickwheel.getObject().nodeId())) {
            log.info("reminder {} sent (idempotency key {})", id, context.idempotencyKey());
        }
    }
}
