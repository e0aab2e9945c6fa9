package dev.tickwheel.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tickwheel.server.AuditService;
import java.io.IOException;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes one audit entry per change made through the API (every POST, PUT, PATCH and DELETE route but the open ones:
 * callback reports and the demo echo), after the route answered, refusals included:
 * <ul>
 *   <li>actor: the token's name; action: the route ({@code PUT /api/jobs/{id}}); status: the answer's;</li>
 *   <li>target: what the path names ({@code job 123}, {@code token 456}), or what a creation's {@code Location}
 *       names;</li>
 *   <li>namespace: the one the route acted in, else the caller's;</li>
 *   <li>changes, for a 2xx answer: the fields the route says it changed (a job's update: each changed field's old and
 *       new value), else the request body; any field whose name contains {@code secret}, {@code token} or
 *       {@code password} shows {@value #MASK}.</li>
 * </ul>
 * A refused request (a 401) has no caller and is not recorded.
 *
 * <p>When: a change of an ADMIN route (jobs, workflows, tokens, namespaces, calendars, pools) answers after its entry
 * is committed. An operation (OPERATE routes: run, cancel, reschedule, rerun, enable, disable) and any refused call
 * answer at once, and their entry is committed a few milliseconds later with the entries of other calls (a crash in
 * that window can lose them). If an entry cannot be stored (the store is down), the change stands and is answered as
 * it happened; the entry is logged at ERROR instead, whole, so the log keeps it.
 *
 * <p>Thread-safe.
 */
final class AuditTrail {

    private static final Logger log = LoggerFactory.getLogger(AuditTrail.class);
    static final String MASK = "***";
    private static final Set<String> SECRET_WORDS = Set.of("secret", "token", "password");
    /** Path segment before a {@code {param}} → what the parameter names. */
    private static final Map<String, String> KINDS = Map.of("jobs", "job", "instances", "instance", "workflows",
            "workflow", "workflow-runs", "workflow run", "pools", "pool", "calendars", "calendar", "tokens", "token",
            "namespaces", "namespace");

    private final AuditService audit;
    private final ObjectMapper json;

    AuditTrail(AuditService audit, ObjectMapper json) {
        this.audit = audit;
        this.json = json;
    }

    /** Records what {@code exchange} did on route {@code route}, and returns once the entry is stored. */
    void record(ApiRoute route, CallerExchange exchange) {
        write(route, exchange, false);
    }

    /**
     * Records what a call did without waiting for the store: for a refused call (one refused for a store outage then
     * answers within one store timeout, not two), and for the operations (runs, cancels, reschedules, reruns), whose
     * rate an extra commit before each answer would halve.
     */
    void recordLater(ApiRoute route, CallerExchange exchange) {
        write(route, exchange, true);
    }

    private void write(ApiRoute route, CallerExchange exchange, boolean later) {
        Caller caller = exchange.caller();
        int status = exchange.answeredStatus();
        String target = target(route.path(), exchange);
        String namespace = exchange.namespace() != null ? exchange.namespace() : caller.namespace();
        String changes = status >= 200 && status < 300 ? changes(exchange) : null;
        String action = route.method() + " " + route.path();
        try {
            if (later) {
                audit.recordLater(caller.name(), namespace, action, target, status, changes);
            } else {
                audit.record(caller.name(), namespace, action, target, status, changes);
            }
        } catch (RuntimeException e) {
            log.error("audit entry not stored ({}): actor={} namespace={} action={} target={} status={} changes={}",
                    e.toString(), caller.name(), namespace, action, target, status, changes);
        }
    }

    /** {@code job 123} for {@code /api/jobs/{id}…}, else what the {@code Location} of a creation names, else null. */
    static String target(String template, ApiExchange exchange) {
        String[] parts = template.split("/");
        for (int i = 1; i < parts.length; i++) {
            if (parts[i].startsWith("{") && KINDS.containsKey(parts[i - 1])) {
                String param = parts[i].substring(1, parts[i].length() - 1);
                String value = exchange.pathParam(param);
                String kind = KINDS.get(parts[i - 1]);
                // A run key after its job: "job 12 run key-1".
                if (i + 2 < parts.length && parts[i + 2].startsWith("{")) {
                    return kind + " " + value + " " + parts[i + 1].replaceAll("s$", "") + " "
                            + exchange.pathParam(parts[i + 2].substring(1, parts[i + 2].length() - 1));
                }
                return kind + " " + value;
            }
        }
        String location = exchange instanceof CallerExchange known ? known.location() : null;
        if (location != null && location.indexOf('?') >= 0) {
            location = location.substring(0, location.indexOf('?')); // ?namespace=: the entry has its own column
        }
        if (location != null) {
            String[] located = location.split("/");
            if (located.length >= 2 && KINDS.containsKey(located[located.length - 2])) {
                return KINDS.get(located[located.length - 2]) + " " + located[located.length - 1];
            }
        }
        return null;
    }

    private String changes(CallerExchange exchange) {
        try {
            JsonNode tree;
            if (exchange.changes() != null) {
                tree = json.valueToTree(exchange.changes());
            } else {
                byte[] body = exchange.bodyRead();
                if (body == null || body.length == 0) {
                    return null;
                }
                tree = json.readTree(body);
            }
            return tree == null || tree.isMissingNode() ? null : json.writeValueAsString(masked(tree));
        } catch (IOException | IllegalArgumentException e) {
            return null; // a body that is not JSON was refused by its route; nothing was changed
        }
    }

    /** {@code tree} with the value of every secret-named field replaced by {@value #MASK}, at any depth. */
    static JsonNode masked(JsonNode tree) {
        if (tree.isObject()) {
            ObjectNode object = (ObjectNode) tree;
            for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> field = it.next();
                if (isSecretName(field.getKey()) && !field.getValue().isNull()) {
                    field.setValue(object.textNode(MASK));
                } else {
                    masked(field.getValue());
                }
            }
        } else if (tree.isArray()) {
            tree.forEach(AuditTrail::masked);
        }
        return tree;
    }

    static boolean isSecretName(String field) {
        String lower = field.toLowerCase(Locale.ROOT);
        return SECRET_WORDS.stream().anyMatch(lower::contains);
    }
}
