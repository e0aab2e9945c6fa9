package dev.tickwheel.server.schedule;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.tickwheel.server.calendar.JobCalendar;
import dev.tickwheel.server.store.CalendarStore;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The loaders' view of the calendars: read from the store at most once per {@link #MAX_AGE} per name, so a replaced
 * calendar (or a name deleted and created again) reaches every member's plans within {@link #MAX_AGE}. A deleted
 * calendar cannot be stale here in a way that matters: the store refuses to delete one a job names.
 *
 * <p>Thread-safe.
 */
public final class CalendarCatalog {

    /** How long a calendar read is reused. */
    public static final Duration MAX_AGE = Duration.ofSeconds(30);

    private final CalendarStore store;
    private final Cache<String, Optional<JobCalendar>> cache;

    public CalendarCatalog(CalendarStore store) {
        this.store = Objects.requireNonNull(store, "store");
        this.cache = Caffeine.newBuilder().expireAfterWrite(MAX_AGE).maximumSize(10_000).build();
    }

    /** The calendar of this name, or empty if there is none. */
    public Optional<JobCalendar> get(String name) {
        return cache.get(name, store::get);
    }
}
