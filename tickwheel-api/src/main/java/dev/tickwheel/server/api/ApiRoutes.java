package dev.tickwheel.server.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tickwheel.server.TickwheelServer;
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
    private final BearerTokenCheck auth;
    private final ErrorResponder errors = new ErrorResponder();
    private final ObjectMapper json = ApiJson.newMapper();
    private final Map<String, String> assets;

    /**
     * @param engine   a started engine
     * @param token    the bearer token mutating requests need, or null for none
     * @param demoEcho whether {@code POST /demo/echo} exists (the demo jobs' webhook)
     * @param scrape   renders the metrics in Prometheus text format, for {@code GET /metrics}
     */
    public ApiRoutes(TickwheelServer engine, String token, boolean demoEcho, Supplier<String> scrape) {
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(scrape, "scrape");
        JsonBodyReader bodies = new JsonBodyReader(json);
        ApiViews views = new ApiViews(json);
        JobRoutes jobs = new JobRoutes(engine.jobs(), new JobRequestParser(engine.handlerNames(),
                name -> engine.calendars().get(name).isPresent(), name -> engine.pools().get(name).isPresent()),
                bodies, views);
        CalendarRoutes calendars = new CalendarRoutes(engine.calendars(), bodies);
        PoolRoutes pools = new PoolRoutes(engine.pools(), bodies);
        InstanceRoutes instances = new InstanceRoutes(engine.instances(), bodies, views);
        OpsRoutes ops = new OpsRoutes(engine, scrape);
        CallbackRoutes callbacks = new CallbackRoutes(engine.callbacks(), bodies, json);
        WorkflowRoutes workflows = new WorkflowRoutes(engine.workflows(), bodies, json);
        DashboardPage dashboard = new DashboardPage();
        ApiDocs docs = new ApiDocs();
        this.auth = token == null ? null : new BearerTokenCheck(token, Set.of(DemoEcho.PATH),
                Set.of(CallbackRoutes.PATH_PREFIX));
        this.assets = Map.of("/assets", DashboardPage.RESOURCE_DIRECTORY, ApiDocs.PAGE_PATH + "/assets",
                docs.assetsDirectory());

        add("POST", "/api/jobs", jobs::create);
        add("GET", "/api/jobs", jobs::list);
        add("GET", "/api/jobs/{id}", jobs::get);
        add("PUT", "/api/jobs/{id}", jobs::update);
        add("DELETE", "/api/jobs/{id}", jobs::delete);
        add("POST", "/api/jobs/{id}/enable", jobs::enable);
        add("POST", "/api/jobs/{id}/disable", jobs::disable);
        add("POST", "/api/jobs/{id}/run", jobs::run);
        add("POST", "/api/jobs/{id}/runs", jobs::runs);
        add("GET", "/api/jobs/{id}/runs/{key}", instances::getByKey);
        add("POST", "/api/jobs/{id}/runs/{key}/cancel", instances::cancelByKey);
        add("POST", "/api/jobs/{id}/runs/{key}/reschedule", instances::rescheduleByKey);
        add("GET", "/api/instances", instances::list);
        add("POST", "/api/instances/cancel", instances::cancelAll);
        add("POST", "/api/instances/rerun", instances::rerunAll);
        add("GET", "/api/instances/{id}", instances::get);
        add("POST", "/api/instances/{id}/cancel", instances::cancel);
        add("POST", "/api/instances/{id}/reschedule", instances::reschedule);
        add("POST", "/api/instances/{id}/rerun", instances::rerun);
        add("POST", "/api/calendars", calendars::create);
        add("GET", "/api/calendars", calendars::list);
        add("GET", "/api/calendars/{name}", calendars::get);
        add("PUT", "/api/calendars/{name}", calendars::replace);
        add("DELETE", "/api/calendars/{name}", calendars::delete);
        add("POST", CallbackRoutes.PATH_PREFIX + "{token}", callbacks::report);
        add("POST", "/api/workflows", workflows::create);
        add("GET", "/api/workflows", workflows::list);
        add("GET", "/api/workflows/{id}", workflows::get);
        add("POST", "/api/workflows/{id}/run", workflows::run);
        add("GET", "/api/workflow-runs/{id}", workflows::getRun);
        add("POST", "/api/workflow-runs/{id}/cancel", workflows::cancelRun);
        add("POST", "/api/pools", pools::create);
        add("GET", "/api/pools", pools::list);
        add("GET", "/api/pools/{name}", pools::get);
        add("PUT", "/api/pools/{name}", pools::replace);
        add("DELETE", "/api/pools/{name}", pools::delete);
        add("GET", "/api/cluster", ops::cluster);
        add("GET", "/health", ops::health);
        add("GET", "/metrics", ops::metrics);
        add("GET", "/", dashboard::serve);
        add("GET", ApiDocs.SPEC_PATH, docs::serveSpec);
        add("GET", ApiDocs.PAGE_PATH, docs::servePage);
        if (demoEcho) {
            add("POST", DemoEcho.PATH, new DemoEcho()::echo);
        }
    }

    private void add(String method, String path, ApiRoute.Handler handler) {
        routes.add(new ApiRoute(method, path, handler));
    }

    /** Every route, in the order registered. */
    public List<ApiRoute> routes() {
        return List.copyOf(routes);
    }

    /**
     * The token rule, to run before each route: returns if the request may go on.
     *
     * @throws ApiException 401 if it is a mutating request without the token
     */
    public void checkAccess(ApiExchange exchange) {
        if (auth != null) {
            auth.check(exchange);
        }
    }

    /** The error answer for a failure of a route (or of {@link #checkAccess}). */
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
