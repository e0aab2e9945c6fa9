package dev.tickwheel.spring.web;

import dev.tickwheel.server.api.ApiExchange;
import dev.tickwheel.server.api.ApiRoute;
import dev.tickwheel.server.api.ApiRoutes;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Tickwheel's HTTP API and console ({@link ApiRoutes}) as a servlet of the application's own web server, mapped to
 * {@code <path>/*}: the same routes, token rule, error answers and static files as the standalone server, below the
 * mount path ({@code /tickwheel/api/jobs}, {@code /tickwheel/} for the console).
 *
 * <p>Thread-safe: the route table is immutable after construction; each request gets its own exchange.
 */
public final class TickwheelApiServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;
    private static final Pattern PARAMETER = Pattern.compile("\\{([A-Za-z]+)}");
    private static final Map<String, String> CONTENT_TYPES = Map.of("js", "text/javascript; charset=utf-8",
            "css", "text/css; charset=utf-8", "html", "text/html; charset=utf-8", "json", "application/json",
            "map", "application/json", "png", "image/png", "svg", "image/svg+xml");

    /** A route with its path as a pattern: each {@code {name}} one segment. */
    private record Compiled(ApiRoute route, Pattern pattern, List<String> names) {
    }

    private final transient ApiRoutes api;
    private final transient List<Compiled> routes = new ArrayList<>();

    public TickwheelApiServlet(ApiRoutes api) {
        this.api = api;
        for (ApiRoute route : api.routes()) {
            List<String> names = new ArrayList<>();
            Matcher m = PARAMETER.matcher(route.path());
            StringBuilder regex = new StringBuilder();
            int last = 0;
            while (m.find()) {
                regex.append(Pattern.quote(route.path().substring(last, m.start()))).append("([^/]+)");
                names.add(m.group(1));
                last = m.end();
            }
            regex.append(Pattern.quote(route.path().substring(last)));
            routes.add(new Compiled(route, Pattern.compile(regex.toString()), List.copyOf(names)));
        }
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String rawPath = request.getRequestURI().substring(
                request.getContextPath().length() + request.getServletPath().length());
        if (rawPath.isEmpty()) {
            response.sendRedirect(request.getRequestURI() + "/"); // the console's relative links need the slash
            return;
        }
        if ("GET".equals(request.getMethod()) && serveAsset(rawPath, response)) {
            return;
        }
        Set<String> otherMethods = new java.util.TreeSet<>();
        for (Compiled compiled : routes) {
            Matcher m = compiled.pattern().matcher(rawPath);
            if (!m.matches()) {
                continue;
            }
            if (!compiled.route().method().equals(request.getMethod())) {
                otherMethods.add(compiled.route().method());
                continue;
            }
            Map<String, String> params = new HashMap<>();
            for (int i = 0; i < compiled.names().size(); i++) {
                params.put(compiled.names().get(i), URLDecoder.decode(m.group(i + 1).replace("+", "%2B"),
                        StandardCharsets.UTF_8));
            }
            ApiExchange exchange = new ServletExchange(request, response, decoded(rawPath), params, api.json());
            try {
                compiled.route().handler().handle(exchange);
            } catch (Exception e) {
                api.respond(e, exchange);
            }
            return;
        }
        ApiExchange exchange = new ServletExchange(request, response, decoded(rawPath), Map.of(), api.json());
        if (otherMethods.isEmpty()) {
            ApiRoutes.httpError(exchange, 404, null);
        } else {
            response.setHeader("Allow", String.join(", ", otherMethods));
            ApiRoutes.httpError(exchange, 405,
                    request.getMethod() + " is not allowed here; allowed: " + otherMethods);
        }
    }

    private static String decoded(String rawPath) {
        return URLDecoder.decode(rawPath.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    /** A static file of the console or Swagger UI from the class path; false if the path is not one. */
    private boolean serveAsset(String path, HttpServletResponse response) throws IOException {
        for (Map.Entry<String, String> asset : api.assets().entrySet()) {
            String prefix = asset.getKey() + "/";
            if (!path.startsWith(prefix)) {
                continue;
            }
            String file = path.substring(prefix.length());
            if (file.isEmpty() || file.contains("..") || file.contains("\\")) {
                return false;
            }
            try (InputStream in = TickwheelApiServlet.class.getResourceAsStream(asset.getValue() + "/" + file)) {
                if (in == null) {
                    return false;
                }
                byte[] body = in.readAllBytes();
                String extension = file.substring(file.lastIndexOf('.') + 1);
                response.setContentType(CONTENT_TYPES.getOrDefault(extension, "application/octet-stream"));
                response.setHeader("Cache-Control", "no-cache");
                response.setContentLength(body.length);
                response.getOutputStream().write(body);
                return true;
            }
        }
        return false;
    }
}
