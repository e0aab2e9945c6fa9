package dev.tickwheel.server.dispatch;

import dev.tickwheel.server.job.Job;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Chooses the invoker for a job's target type, and names the target a call is counted under by {@link CallSlots}:
 * a webhook's scheme, host and port, or the in-process handlers' pool.
 *
 * <p>Thread-safe (its only state is a cache of host keys).
 */
public final class TargetRouter implements TargetInvoker {

    private final InProcessHandlers handlers;
    private final TargetInvoker webhooks;
    private final int perHostLimit;
    private final int serverLimit;

    /**
     * @param perHostLimit calls in flight to one webhook host, at most
     * @param serverLimit  calls in flight on the server, at most (the only bound of async handlers but their job's)
     */
    public TargetRouter(InProcessHandlers handlers, TargetInvoker webhooks, int perHostLimit, int serverLimit) {
        this.handlers = Objects.requireNonNull(handlers, "handlers");
        this.webhooks = Objects.requireNonNull(webhooks, "webhooks");
        if (perHostLimit < 1 || serverLimit < 1) {
            throw new IllegalArgumentException("limits must be at least 1: per host " + perHostLimit + ", server "
                    + serverLimit);
        }
        this.perHostLimit = perHostLimit;
        this.serverLimit = serverLimit;
    }

    /** Webhook URL to its host key: parsing a URL on every fire showed in profiles. */
    private final com.github.benmanes.caffeine.cache.Cache<String, String> hosts =
            com.github.benmanes.caffeine.cache.Caffeine.newBuilder().maximumSize(10_000).build();

    @Override
    public CompletableFuture<String> invoke(Job job, JobContext context, Duration timeout) {
        return switch (job.target().type()) {
            case HANDLER -> handlers.invoke(job, context, timeout);
            case WEBHOOK -> webhooks.invoke(job, context, timeout);
        };
    }

    /** The key this job's calls are counted under, e.g. {@code http://127.0.0.1:8080}. */
    public String targetOf(Job job) {
        return switch (job.target().type()) {
            case HANDLER -> handlers.targetOf(job.target().value());
            case WEBHOOK -> hosts.get(job.target().value(), TargetRouter::hostOf);
        };
    }

    /** The most calls in flight to the target {@link #targetOf} named. */
    public int limitOf(String target) {
        if (target.equals(InProcessHandlers.SYNC_TARGET)) {
            return handlers.threads();
        }
        if (target.equals(InProcessHandlers.ASYNC_TARGET)) {
            return serverLimit;
        }
        return perHostLimit;
    }

    /** Scheme, lower-case host and explicit port of a webhook URL: calls to one server share one limit. */
    static String hostOf(String url) {
        URI uri = URI.create(url);
        String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
        int port = uri.getPort() != -1 ? uri.getPort() : scheme.equals("https") ? 443 : 80;
        return scheme + "://" + uri.getHost().toLowerCase(Locale.ROOT) + ":" + port;
    }
}
