package dev.tickwheel.server.schedule;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.tickwheel.server.calendar.JobCalendar;
import dev.tickwheel.server.store.CalendarStore;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The loaders' view of the calendars: read from the store at most once per {@link #MAX_AGE} per name. A calendar is
 * never changed in place, so the only staleness is a deleted one (which no job can name: the store refuses to delete
 * a calendar in use) or a name deleted and created again, which every member sees within {@link #MAX_AGE}.
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
