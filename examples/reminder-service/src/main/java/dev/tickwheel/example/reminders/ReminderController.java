package dev.tickwheel.example.reminders;

import java.time.Instant;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /reminders}, {@code GET /reminders/{id}}, {@code DELETE /reminders/{id}}. */
@RestController
@RequestMapping("/reminders")
public class ReminderController {

    private final ReminderService service;
    private final ReminderRepository reminders;

    public ReminderController(ReminderService service, ReminderRepository reminders) {
        this.service = service;
        this.reminders = reminders;
    }

    /** What a client sends: the reminder, due {@code inSeconds} from now. */
    public record NewReminder(String recipient, String text, long inSeconds) {
    }

    @PostMapping
    public ResponseEntity<Reminder> create(@RequestBody NewReminder request) {
        if (request.recipient() == null || request.text() == null || request.inSeconds() < 0) {
            return ResponseEntity.badRequest().build();
        }
        Reminder reminder = service.schedule(request.recipient(), request.text(),
                Instant.now().plusSeconds(request.inSeconds()));
        return ResponseEntity.status(HttpStatus.CREATED).body(reminder);
    }

    @GetMapping("/{id}")
    public ResponseEntity<Reminder> get(@PathVariable long id) {
        return ResponseEntity.of(reminders.find(id));
    }

    @DeleteMapping("/{id}")
    public ResponseEntity<Void> cancel(@PathVariable long id) {
        return service.cancel(id) ? ResponseEntity.noContent().build() : ResponseEntity.notFound().build();
    }
}
