package dev.tickwheel.example.reminders;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.stereotype.Repository;

/** The application's own table, through Spring's JdbcClient (it joins the same transactions Tickwheel does). */
@Repository
public class ReminderRepository {

    private final JdbcClient jdbc;

    public ReminderRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    long insert(String recipient, String text, Instant dueAt) {
        GeneratedKeyHolder key = new GeneratedKeyHolder();
        jdbc.sql("INSERT INTO reminder (recipient, text, due_at, status) VALUES (?, ?, ?, 'SCHEDULED')")
                .params(recipient, text, Timestamp.from(dueAt)).update(key, "id");
        return key.getKey().longValue();
    }

    public Optional<Reminder> find(long id) {
        return jdbc.sql("SELECT id, recipient, text, due_at, status, sent_at, sent_by_node FROM reminder WHERE id = ?")
                .param(id)
                .query((rs, row) -> new Reminder(rs.getLong(1), rs.getString(2), rs.getString(3),
                        rs.getTimestamp(4).toInstant(), rs.getString(5),
                        rs.getTimestamp(6) == null ? null : rs.getTimestamp(6).toInstant(),
                        (Integer) rs.getObject(7, Integer.class)))
                .optional();
    }

    /** SCHEDULED → CANCELLED; false if it was not scheduled (sent, cancelled or unknown). */
    boolean markCancelled(long id) {
        return jdbc.sql("UPDATE reminder SET status = 'CANCELLED' WHERE id = ? AND status = 'SCHEDULED'")
                .param(id).update() == 1;
    }

    /** SCHEDULED → SENT; false if it was not scheduled (a repeated call after the first one's commit). */
    boolean markSent(long id, int node) {
        return jdbc.sql("UPDATE reminder SET status = 'SENT', sent_at = ?, sent_by_node = ? WHERE id = ?"
                        + " AND status = 'SCHEDULED'")
                .params(Timestamp.from(Instant.now()), node, id).update() == 1;
    }
}
