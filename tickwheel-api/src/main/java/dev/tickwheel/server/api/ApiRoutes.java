package dev.tickwheel.server.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tickwheel.server.TickwheelServer;
import dev.tickwheel.server.access.Role;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The HTTP API and the console of one engine, independent of what serves them: every route, the token rule that runs
 * before each, the error answers, and the static files (the console's and Swagger UI's). The standalone server runs
 * them on Javalin ({@code ApiServer}); the Spring Boot starter on the application's servlet container, under a path.
 *
 * <p>Thread-safe (immutable once built); the handlers are.
 */
public final class ApiRoutes {

    private final List<ApiRoute> routes = new ArrayList<>();
    private static final java.util.Set<String> MUTATING = java.util.Set.of("POST", "PUT", "PATCH", "DELETE");

    private final AccessCheck auth;
    private final AuditTrail audit;
    private final ErrorResponder errors = new ErrorResponder();
    private final ObjectMapper json = ApiJson.newMapper();
    private final Map<String, String> assets;

    /**
     * @param engine     a started engine
     * @param token      the bootstrap admin token ({@code --token}), or null for none
     * @param demoEcho   whether {@code POST /demo/echo} exists (the demo jobs' webhook)
     * @param scrape     renders the metrics in Prometheus text format, for {@code GET /metrics}
     * @param openHealth whether {@code /health} and {@code /metrics} need no token once tokens exist
     */
    public ApiRoutes(TickwheelServer engine, String token, boolean demoEcho, Supplier<String> scrape,
                     boolean openHealth) {
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(scrape, "scrape");
        JsonBodyReader bodies = new JsonBodyReader(json);
        ApiViews views = new ApiViews(json);
        Scopes scopes = new Scopes(engine.access(), engine.instances());
        JobRoutes jobs = new JobRoutes(engine.jobs(), scopes, new JobRequestParser(engine.handlerNames(),
                (namespace, name) -> engine.calendars().get(namespace, name).isPresent(),
                (namespace, name) -> engine.pools().get(namespace, name).isPresent()),
                bodies, views);
        CalendarRoutes calendars = new CalendarRoutes(engine.calendars(), scopes, bodies);
        PoolRoutes pools = new PoolRoutes(engine.pools(), scopes, bodies);
        InstanceRoutes instances = new InstanceRoutes(engine.instances(), scopes, bodies, views);
        AccessRoutes access = new AccessRoutes(engine.access(), engine.audit(), bodies, json);
        OpsRoutes ops = new OpsRoutes(engine, scrape);
        CallbackRoutes callbacks = new CallbackRoutes(engine.callbacks(), bodies, json);
        WorkflowRoutes workflows = new WorkflowRoutes(engine.workflows(), scopes, bodies, json);
        DashboardPage dashboard = new DashboardPage();
        ApiDocs docs = new ApiDocs();
        this.auth = new AccessCheck(token, engine.access(), openHealth);
        this.audit = new AuditTrail(engine.audit(), json);
        this.assets = Map.of("/assets", DashboardPage.RESOURCE_DIRECTORY, ApiDocs.PAGE_PATH + "/assets",
                docs.assetsDirectory());

        add("POST", "/api/jobs", RouteAccess.ADMIN, jobs::create);
        add("GET", "/api/jobs", RouteAccess.READ, jobs::list);
        add("GET", "/api/jobs/{id}", RouteAccess.READ, jobs::get);
        add("PUT", "/api/jobs/{id}", RouteAccess.ADMIN, jobs::update);
        add("DELETE", "/api/jobs/{id}", RouteAccess.ADMIN, jobs::delete);
        add("POST", "/api/jobs/{id}/enable", RouteAccess.OPERATE, jobs::enable);
        add("POST", "/api/jobs/{id}/disable", RouteAccess.OPERATE, jobs::disable);
        add("POST", "/api/jobs/{id}/run", RouteAccess.OPERATE, jobs::run);
        add("POST", "/api/jobs/{id}/runs", RouteAccess.OPERATE, jobs::runs);
        add("GET", "/api/jobs/{id}/runs/{key}", RouteAccess.READ, instances::getByKey);
        add("POST", "/api/jobs/{id}/runs/{key}/cancel", RouteAccess.OPERATE, instances::cancelByKey);
        add("POST", "/api/jobs/{id}/runs/{key}/reschedule", RouteAccess.OPERATE, instances::rescheduleByKey);
        add("GET", "/api/instances", RouteAccess.READ, instances::list);
        add("POST", "/api/instances/cancel", RouteAccess.OPERATE, instances::cancelAll);
        add("POST", "/api/instances/rerun", RouteAccess.OPERATE, instances::rerunAll);
        add("GET", "/api/instances/{id}", RouteAccess.READ, instances::get);
        add("POST", "/api/instances/{id}/cancel", RouteAccess.OPERATE, instances::cancel);
        add("POST", "/api/instances/{id}/reschedule", RouteAccess.OPERATE, instances::reschedule);
        add("POST", "/api/instances/{id}/rerun", RouteAccess.OPERATE, instances::rerun);
        add("POST", "/api/calendars", RouteAccess.ADMIN, calendars::create);
        add("GET", "/api/calendars", RouteAccess.READ, calendars::list);
        add("GET", "/api/calendars/{name}", RouteAccess.READ, calendars::get);
        add("PUT", "/api/calendars/{name}", RouteAccess.ADMIN, calendars::replace);
        add("DELETE", "/api/calendars/{name}", RouteAccess.ADMIN, calendars::delete);
        add("POST", CallbackRoutes.PATH_PREFIX + "{token}", RouteAccess.OPEN, callbacks::report);
        // A workflow is in the namespace of its jobs.
        add("POST", "/api/workflows", RouteAccess.ADMIN, workflows::create);
        add("GET", "/api/workflows", RouteAccess.READ, workflows::list);
        add("GET", "/api/workflows/{id}", RouteAccess.READ, workflows::get);
        add("POST", "/api/workflows/{id}/run", RouteAccess.OPERATE, workflows::run);
        add("GET", "/api/workflow-runs/{id}", RouteAccess.READ, workflows::getRun);
        add("POST", "/api/workflow-runs/{id}/cancel", RouteAccess.OPERATE, workflows::cancelRun);
        add("POST", "/api/pools", RouteAccess.ADMIN, pools::create);
        add("GET", "/api/pools", RouteAccess.READ, pools::list);
        add("GET", "/api/pools/{name}", RouteAccess.READ, pools::get);
        add("PUT", "/api/pools/{name}", RouteAccess.ADMIN, pools::replace);
        add("DELETE", "/api/pools/{name}", RouteAccess.ADMIN, pools::delete);
        add("POST", "/api/namespaces", RouteAccess.SERVER_ADMIN, access::createNamespace);
        add("GET", "/api/namespaces", RouteAccess.READ, access::listNamespaces);
        add("POST", "/api/tokens", RouteAccess.ADMIN, access::createToken);
        add("GET", "/api/tokens", RouteAccess.ADMIN, access::listTokens);
        add("GET", "/api/tokens/{id}", RouteAccess.ADMIN, access::getToken);
        add("DELETE", "/api/tokens/{id}", RouteAccess.ADMIN, access::revokeToken);
        add("GET", "/api/whoami", RouteAccess.READ, access::whoami);
        add("GET", "/api/audit", RouteAccess.ADMIN, access::audit);
        add("GET", "/api/cluster", RouteAccess.SERVER_READ, ops::cluster);
        add("GET", "/health", RouteAccess.HEALTH, ops::health);
        add("GET", "/metrics", RouteAccess.HEALTH, ops::metrics);
        add("GET", "/", RouteAccess.OPEN, dashboard::serve);
        add("GET", ApiDocs.SPEC_PATH, RouteAccess.OPEN, docs::serveSpec);
        add("GET", ApiDocs.PAGE_PATH, RouteAccess.OPEN, docs::servePage);
        if (demoEcho) {
            add("POST", DemoEcho.PATH, RouteAccess.OPEN, new DemoEcho()::echo);
        }
    }

    /**
     * Adds a route whose handler first checks the caller's token against {@code access} and then, for a change (any
     * method but GET on a route that is not open), records what it did in the audit trail.
     */
    private void add(String method, String path, RouteAccess access, ApiRoute.Handler handler) {
        boolean audited = MUTATING.contains(method) && access != RouteAccess.OPEN;
        ApiRoute[] self = new ApiRoute[1];
        self[0] = new ApiRoute(method, path, access, exchange -> {
            CallerExchange known = new CallerExchange(exchange, auth.identify(exchange, access));
            if (!audited) {
                AccessCheck.authorize(known.caller(), known, access);
                handler.handle(known);
                return;
            }
            // A known token refused for its role or reach is audited (who tried what); a call without a valid
            // token (401) is not: anyone could fill the trail with those, and they change nothing.
            try {
                AccessCheck.authorize(known.caller(), known, access);
                handler.handle(known);
            } catch (Exception e) {
                known.status(ErrorResponder.statusOf(e));
                audit.recordLater(self[0], known);
                throw e;
            }
            // What an ADMIN token does (definitions, tokens, namespaces) is committed before the answer; the
            // operations, run at the API's full rate (runs, cancels, reschedules), are written just after it.
            if (access.role() == Role.ADMIN) {
                audit.record(self[0], known);
            } else {
                audit.recordLater(self[0], known);
            }
        });
        routes.add(self[0]);
    }

    /** Every route, in the order registered. */
    public List<ApiRoute> routes() {
        return List.copyOf(routes);
    }

    /** The error answer for a failure of a route (its access check's included). */
    public void respond(Exception failure, ApiExchange exchange) {
        errors.respond(failure, exchange);
    }

    /**
     * The answer to a refusal of whatever serves the routes: no route for the path (404), not this method (405), a
     * body over its limit (413); in the API's error shape.
     */
    public static void httpError(ApiExchange exchange, int status, String message) {
        ErrorResponder.httpError(exchange, status, message);
    }

    /** The JSON rules of the API's answers ({@link ApiJson}). */
    public ObjectMapper json() {
        return json;
    }

    /** Static files: URL path prefix → class path directory (the console's, Swagger UI's). */
    public Map<String, String> assets() {
        return assets;
    }
}
