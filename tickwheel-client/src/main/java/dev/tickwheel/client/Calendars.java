package dev.tickwheel.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.tickwheel.client.model.Calendar;
import dev.tickwheel.client.model.CalendarRequest;
import dev.tickwheel.client.model.Page;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The {@code /api/calendars} operations of a {@link TickwheelClient}: calendars of excluded days, which a CRON or
 * FIXED_RATE job names ({@code JobRequest.Builder#calendar}). Reads and replaces are retried as
 * {@link TickwheelClient} says; a create and a delete are not (a repeat would answer 409 or 404).
 *
 * <p>Thread-safe.
 */
public final class Calendars {

    private final ApiTransport transport;
    private final ObjectMapper json;
    private final ObjectReader calendarReader;
    private final ObjectReader pageReader;

    Calendars(ApiTransport transport, ObjectMapper json) {
        this.transport = transport;
        this.json = json;
        this.calendarReader = json.readerFor(Calendar.class);
        this.pageReader = json.readerFor(json.getTypeFactory().constructParametricType(Page.class, Calendar.class));
    }

    /** {@code POST /api/calendars}. @throws ConflictException if the name is taken */
    public Calendar create(CalendarRequest calendar) {
        return transport.call(createCall(calendar));
    }

    public CompletableFuture<Calendar> createAsync(CalendarRequest calendar) {
        return transport.send(createCall(calendar));
    }

    private ApiCall<Calendar> createCall(CalendarRequest calendar) {
        return new ApiCall<>("POST", "/api/calendars", body(calendar), false, Set.of(201), calendarReader);
    }

    /**
     * {@code PUT /api/calendars/{name}}: replaces the calendar's zone, dates and weekdays ({@code calendar}'s name
     * must be {@code name}); every member plans with them within 30 s. Retried: a repeat writes the same.
     *
     * @throws NotFoundException if there is none of that name
     */
    public Calendar replace(String name, CalendarRequest calendar) {
        return transport.call(replaceCall(name, calendar));
    }

    public CompletableFuture<Calendar> replaceAsync(String name, CalendarRequest calendar) {
        return transport.send(replaceCall(name, calendar));
    }

    private ApiCall<Calendar> replaceCall(String name, CalendarRequest calendar) {
        return new ApiCall<>("PUT", path(name), body(calendar), true, Set.of(200), calendarReader);
    }

    /** {@code GET /api/calendars}: every calendar, by name. */
    public List<Calendar> list() {
        return transport.<Page<Calendar>>call(ApiCall.get("/api/calendars", pageReader)).items();
    }

    public CompletableFuture<List<Calendar>> listAsync() {
        return transport.<Page<Calendar>>send(ApiCall.get("/api/calendars", pageReader)).thenApply(Page::items);
    }

    /** {@code GET /api/calendars/{name}}. @throws NotFoundException if there is none of that name */
    public Calendar get(String name) {
        return transport.call(ApiCall.get(path(name), calendarReader));
    }

    public CompletableFuture<Calendar> getAsync(String name) {
        return transport.send(ApiCall.get(path(name), calendarReader));
    }

    /** {@code DELETE /api/calendars/{name}}. @throws ConflictException while a job names it */
    public void delete(String name) {
        transport.call(deleteCall(name));
    }

    public CompletableFuture<Void> deleteAsync(String name) {
        return transport.send(deleteCall(name));
    }

    private static ApiCall<Void> deleteCall(String name) {
        return new ApiCall<>("DELETE", path(name), null, false, Set.of(204), null);
    }

    private static String path(String name) {
        return "/api/calendars/" + RequestPaths.segment(Objects.requireNonNull(name, "name"));
    }

    private byte[] body(Object value) {
        return ClientJson.body(json, value);
    }
}
