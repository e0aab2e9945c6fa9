package dev.tickwheel.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.tickwheel.client.model.AuditEntry;
import dev.tickwheel.client.model.AuditQuery;
import dev.tickwheel.client.model.Page;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The {@code /api/audit} operation of a {@link TickwheelClient}: the server's trail of changes, newest first. Needs
 * an ADMIN token; a token of one namespace sees its namespace's entries only. Retried, as every read is.
 *
 * <p>Thread-safe.
 */
public final class Audit {

    private final ApiTransport transport;
    private final ObjectReader pageReader;

    Audit(ApiTransport transport, ObjectMapper json) {
        this.transport = transport;
        this.pageReader = json.readerFor(json.getTypeFactory().constructParametricType(Page.class, AuditEntry.class));
    }

    /**
     * {@code GET /api/audit}: a page of entries, newest first, filtered by {@code query}; pass its
     * {@link Page#nextCursor()} to {@link AuditQuery#after} for the next.
     *
     * @throws NotFoundException for a token of one namespace naming another
     */
    public Page<AuditEntry> list(AuditQuery query) {
        return transport.call(listCall(query));
    }

    public CompletableFuture<Page<AuditEntry>> listAsync(AuditQuery query) {
        return transport.send(listCall(query));
    }

    private ApiCall<Page<AuditEntry>> listCall(AuditQuery query) {
        Map<String, Object> parameters = new LinkedHashMap<>();
        parameters.put("actor", query.actor());
        parameters.put("namespace", query.namespace());
        parameters.put("action", query.action());
        parameters.put("target", query.target());
        parameters.put("from", query.from());
        parameters.put("to", query.to());
        parameters.put("limit", query.limit());
        parameters.put("cursor", query.cursor());
        return ApiCall.get(RequestPaths.withQuery("/api/audit", parameters), pageReader);
    }
}
