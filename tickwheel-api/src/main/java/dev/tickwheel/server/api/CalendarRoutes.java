package dev.tickwheel.server.api;

import dev.tickwheel.server.CalendarService;
import dev.tickwheel.server.api.dto.CalendarRequest;
import dev.tickwheel.server.api.dto.CalendarResponse;
import dev.tickwheel.server.api.dto.PageResponse;
import dev.tickwheel.server.calendar.JobCalendar;
import dev.tickwheel.server.store.CalendarStore;
import java.time.DateTimeException;
import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Handlers of {@code /api/calendars…}: named calendars of excluded days, which a CRON or FIXED_RATE job names in its
 * {@code calendar} field. A calendar is created once (a second POST of its name is a 409) and replaced with PUT; one
 * that a job names is not deleted (409). Calendars belong to a namespace, and their names are per namespace: a
 * namespace's token reaches its own only; a token of every namespace names one with {@code ?namespace=} (default:
 * the default namespace), see {@link Scopes#namespaceOfNamed}.
 *
 * <p>Thread-safe (immutable; the service is thread-safe).
 */
final class CalendarRoutes {

    private final CalendarService calendars;
    private final Scopes scopes;
    private final JsonBodyReader bodies;

    CalendarRoutes(CalendarService calendars, Scopes scopes, JsonBodyReader bodies) {
        this.calendars = calendars;
        this.scopes = scopes;
        this.bodies = bodies;
    }

    /** 201 with the calendar; 409 {@code name_taken} if the name exists; 400 naming the field at fault. */
    void create(ApiExchange ctx) {
        CalendarRequest request = bodies.read(ctx, CalendarRequest.class, true);
        if (request.name() == null) {
            throw ApiException.missingField("name");
        }
        Days days = days(request);
        String namespace = scopes.namespaceForNew(ctx, request.namespace());
        CalendarService.Result result;
        try {
            result = calendars.create(namespace, request.name(), days.zone(), days.dates(), days.weekdays());
        } catch (IllegalArgumentException e) {
            throw ApiException.refusedValue(e);
        }
        String location = Scopes.location("/api/calendars", namespace, request.name());
        if (result.creation() == CalendarService.Creation.NAME_TAKEN) {
            throw new ApiException(409, "name_taken", "a calendar named '" + request.name() + "' exists: replace it"
                    + " with PUT " + location, "name");
        }
        ctx.status(201).header("Location", location).json(view(result.calendar()));
    }

    /** 200 with the calendar as replaced; 404 if unknown; 400 naming the field at fault. */
    void replace(ApiExchange ctx) {
        String name = ctx.pathParam("name");
        CalendarRequest request = bodies.read(ctx, CalendarRequest.class, true);
        if (request.name() != null && !request.name().equals(name)) {
            throw ApiException.invalidField("name", request.name(), "must be the path's name '" + name + "' (a"
                    + " calendar is not renamed) or absent");
        }
        Days days = days(request);
        String namespace = scopes.namespaceOfReplaced(ctx, request.namespace(), "calendar");
        try {
            ctx.json(view(calendars.replace(namespace, name, days.zone(), days.dates(), days.weekdays())
                    .orElseThrow(() -> notFound(name))));
        } catch (IllegalArgumentException e) {
            throw ApiException.refusedValue(e);
        }
    }

    /** The caller's namespace's calendars; for a caller of every namespace, all or those of {@code ?namespace=}. */
    void list(ApiExchange ctx) {
        ctx.json(new PageResponse<>(calendars.list(scopes.listedNamespace(ctx)).stream().map(CalendarRoutes::view)
                .toList(), null));
    }

    void get(ApiExchange ctx) {
        String name = ctx.pathParam("name");
        ctx.json(view(calendars.get(scopes.namespaceOfNamed(ctx), name).orElseThrow(() -> notFound(name))));
    }

    /** 204; 404 if unknown; 409 {@code calendar_in_use} while a job names it. */
    void delete(ApiExchange ctx) {
        String name = ctx.pathParam("name");
        CalendarStore.Deletion deletion = calendars.delete(scopes.namespaceOfNamed(ctx), name);
        switch (deletion) {
            case DELETED -> ctx.status(204);
            case NOT_FOUND -> throw notFound(name);
            case IN_USE -> throw new ApiException(409, "calendar_in_use", "calendar '" + name + "' is named by a"
                    + " job: point those jobs at another calendar (or none) first", null);
        }
    }

    static CalendarResponse view(JobCalendar calendar) {
        return new CalendarResponse(calendar.localName(), calendar.zone().getId(),
                calendar.excludedDates().stream().map(LocalDate::toString).toList(),
                calendar.excludedWeekdays().stream().sorted().map(DayOfWeek::name).toList(), calendar.createdAt(),
                calendar.namespace());
    }

    private static ApiException notFound(String name) {
        return ApiException.notFound("calendar '" + name + "' does not exist");
    }

    /** A request's zone, dates and weekdays, each checked on its own (400 naming its field). */
    private record Days(ZoneId zone, List<LocalDate> dates, List<DayOfWeek> weekdays) {
    }

    private static Days days(CalendarRequest request) {
        return new Days(zone(request.zone()), dates(request.excludedDates()), weekdays(request.excludedWeekdays()));
    }

    private static ZoneId zone(String raw) {
        if (raw == null) {
            return ZoneOffset.UTC;
        }
        try {
            return ZoneId.of(raw);
        } catch (DateTimeException e) {
            throw ApiException.invalidField("zone", raw, "must be a time-zone id such as Europe/Berlin or UTC");
        }
    }

    private static List<LocalDate> dates(List<String> raw) {
        List<LocalDate> dates = new ArrayList<>();
        for (String value : raw == null ? List.<String>of() : raw) {
            try {
                dates.add(LocalDate.parse(value));
            } catch (DateTimeException | NullPointerException e) {
                throw ApiException.invalidField("excludedDates", value, "must hold ISO dates such as 2026-12-25");
            }
        }
        return dates;
    }

    private static List<DayOfWeek> weekdays(List<String> raw) {
        List<DayOfWeek> days = new ArrayList<>();
        for (String value : raw == null ? List.<String>of() : raw) {
            try {
                days.add(DayOfWeek.valueOf(value.trim().toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException | NullPointerException e) {
                throw ApiException.invalidField("excludedWeekdays", value, "must hold days such as MONDAY or SUNDAY");
            }
        }
        return days;
    }
}
