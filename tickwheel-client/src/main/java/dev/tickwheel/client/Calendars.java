package dev.tickwheel.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tickwheel.client.model.Calendar;
import dev.tickwheel.client.model.CalendarRequest;
import dev.tickwheel.client.model.Page;
import java.util.List;
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
    private final NamedResourceCalls<Calendar> calls;

    Calendars(ApiTransport transport, ObjectMapper json) {
        this(transport, new NamedResourceCalls<>(json, "/api/calendars", Calendar.class));
    }

    private Calendars(ApiTransport transport, NamedResourceCalls<Calendar> calls) {
        this.transport = transport;
        this.calls = calls;
    }

    /**
     * These operations on the calendars of {@code namespace}, named with {@code ?namespace=}: for a token of every
     * namespace, whose calls otherwise read, replace and delete those of {@code default} and list every namespace's.
     * A namespace's token reaches its own only (another is a {@link NotFoundException}); a create takes its
     * namespace from the request ({@code inNamespace} there).
     */
    public Calendars inNamespace(String namespace) {
        return new Calendars(transport, calls.inNamespace(namespace));
    }

    /** {@code POST /api/calendars}. @throws ConflictException if the name is taken */
    public Calendar create(CalendarRequest calendar) {
        return transport.call(calls.create(calendar));
    }

    public CompletableFuture<Calendar> createAsync(CalendarRequest calendar) {
        return transport.send(calls.create(calendar));
    }

    /**
     * {@code PUT /api/calendars/{name}}: replaces the calendar's zone, dates and weekdays ({@code calendar}'s name
     * must be {@code name}); every member plans with them within 30 s. Retried: a repeat writes the same.
     *
     * @throws NotFoundException if there is none of that name
     */
    public Calendar replace(String name, CalendarRequest calendar) {
        return transport.call(calls.replace(name, calendar));
    }

    public CompletableFuture<Calendar> replaceAsync(String name, CalendarRequest calendar) {
        return transport.send(calls.replace(name, calendar));
    }

    /** {@code GET /api/calendars}: the token's namespace's calendars (a token of every namespace: all), by name. */
    public List<Calendar> list() {
        return transport.call(calls.list()).items();
    }

    public CompletableFuture<List<Calendar>> listAsync() {
        return transport.send(calls.list()).thenApply(Page::items);
    }

    /** {@code GET /api/calendars/{name}}. @throws NotFoundException if there is none of that name */
    public Calendar get(String name) {
        return transport.call(calls.get(name));
    }

    public CompletableFuture<Calendar> getAsync(String name) {
        return transport.send(calls.get(name));
    }

    /** {@code DELETE /api/calendars/{name}}. @throws ConflictException while a job names it */
    public void delete(String name) {
        transport.call(calls.delete(name));
    }

    public CompletableFuture<Void> deleteAsync(String name) {
        return transport.send(calls.delete(name));
    }
}
