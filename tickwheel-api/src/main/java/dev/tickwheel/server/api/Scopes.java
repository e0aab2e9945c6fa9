package dev.tickwheel.server.api;

import dev.tickwheel.server.AccessService;
import dev.tickwheel.server.InstanceService;
import dev.tickwheel.server.access.Namespaces;
import dev.tickwheel.server.instance.InstanceHistory;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Keeps a caller inside its namespace: a job or instance of another namespace is answered as if it did not exist
 * (404, never 403, so a token learns nothing of other namespaces). A caller of every namespace pays nothing: no read
 * is made for it. A job's namespace is cached by {@link AccessService} (it never changes).
 *
 * <p>Thread-safe.
 */
final class Scopes {

    private final AccessService access;
    private final InstanceService instances;

    Scopes(AccessService access, InstanceService instances) {
        this.access = access;
        this.instances = instances;
    }

    /**
     * Returns if the caller of {@code ctx} reaches job {@code jobId}, and records the job's namespace for the audit
     * trail.
     *
     * @throws ApiException 404 if the job is of another namespace
     */
    void requireJob(ApiExchange ctx, long jobId) {
        Caller caller = CallerExchange.caller(ctx);
        if (caller.namespace() == null && !isAudited(ctx)) {
            return;
        }
        String namespace = access.namespaceOfJob(jobId);
        CallerExchange.changedIn(ctx, namespace);
        if (!caller.reaches(namespace)) {
            throw ApiException.notFound("job " + jobId + " does not exist");
        }
    }

    /**
     * The history of instance {@code instanceId} if it exists and the caller of {@code ctx} reaches it; for a
     * caller of every namespace, without a read when {@code needHistory} is false (empty then). Records the
     * namespace for the audit trail when it was read.
     *
     * @throws ApiException 404 if it does not exist or is of another namespace
     */
    Optional<InstanceHistory> requireInstance(ApiExchange ctx, long instanceId, boolean needHistory) {
        Caller caller = CallerExchange.caller(ctx);
        if (caller.namespace() == null && !needHistory) {
            return Optional.empty(); // no read: its audit entry names no namespace
        }
        Optional<InstanceHistory> history = instances.history(instanceId);
        if (history.isEmpty()) {
            if (caller.namespace() == null) {
                return Optional.empty(); // the route's own answer says it does not exist
            }
            throw instanceNotFound(instanceId);
        }
        String namespace = access.namespaceOfJob(history.get().instance().jobId());
        CallerExchange.changedIn(ctx, namespace);
        if (!caller.reaches(namespace)) {
            throw instanceNotFound(instanceId);
        }
        return history;
    }

    /**
     * The instances among {@code instanceIds} the caller of {@code ctx} reaches (not those that do not exist): two
     * reads whatever their number, the instances' jobs and those jobs' namespaces (cached).
     */
    Set<Long> reachableInstances(ApiExchange ctx, Collection<Long> instanceIds) {
        Caller caller = CallerExchange.caller(ctx);
        Map<Long, Long> jobIds = instances.jobIdsOf(instanceIds);
        if (caller.namespace() == null) {
            return jobIds.keySet();
        }
        Map<Long, String> namespaces = access.namespacesOfJobs(new HashSet<>(jobIds.values()));
        Set<Long> reachable = new HashSet<>();
        jobIds.forEach((instanceId, jobId) -> {
            if (caller.reaches(namespaces.getOrDefault(jobId, Namespaces.DEFAULT))) {
                reachable.add(instanceId);
            }
        });
        return reachable;
    }

    /** The namespace the caller of {@code ctx} lists: its own, or the one asked for by {@code ?namespace=}. */
    String listedNamespace(ApiExchange ctx) {
        Caller caller = CallerExchange.caller(ctx);
        String asked = ctx.queryParam("namespace");
        if (asked == null || asked.isBlank()) {
            return caller.namespace();
        }
        String problem = Namespaces.problem(asked);
        if (problem != null) {
            throw ApiException.invalidParameter("namespace", problem);
        }
        if (!caller.reaches(asked)) {
            throw ApiException.notFound("namespace " + ApiException.quoted(asked) + " does not exist");
        }
        return asked;
    }

    /**
     * The namespace whose calendar or pool the path names: the caller's own, or for a caller of every namespace the
     * one of {@code ?namespace=} (the default namespace when absent). Recorded for the audit trail.
     *
     * @throws ApiException 404 if {@code ?namespace=} names one the caller does not reach, 400 if it is no valid name
     */
    String namespaceOfNamed(ApiExchange ctx) {
        String listed = listedNamespace(ctx);
        String namespace = listed == null ? Namespaces.DEFAULT : listed;
        CallerExchange.changedIn(ctx, namespace);
        return namespace;
    }

    /**
     * The namespace a replaced calendar or pool is in ({@link #namespaceOfNamed}); a body's {@code namespace}, if any,
     * must be that one.
     *
     * @throws ApiException 400 naming {@code namespace} if the body names another
     */
    String namespaceOfReplaced(ApiExchange ctx, String requested, String kind) {
        String namespace = namespaceOfNamed(ctx);
        if (requested != null && !requested.equals(namespace)) {
            throw ApiException.invalidField("namespace", requested, "must be " + ApiException.quoted(namespace)
                    + ", the namespace of the path's " + kind + " (give ?namespace= to name another), or absent");
        }
        return namespace;
    }

    /** Where a calendar or pool created in {@code namespace} is read: its path, with the namespace unless default. */
    static String location(String collection, String namespace, String name) {
        return collection + "/" + name + (Namespaces.DEFAULT.equals(namespace) ? "" : "?namespace=" + namespace);
    }

    /** The namespace of a job (cached: it never changes). */
    String namespaceOf(long jobId) {
        return access.namespaceOfJob(jobId);
    }

    /** The namespaces of jobs, read at most once each. */
    Map<Long, String> namespacesOf(Collection<Long> jobIds) {
        return access.namespacesOfJobs(jobIds);
    }

    /**
     * The namespace a new job goes to: the request's {@code namespace}, else the caller's, else the default; it must
     * exist.
     *
     * @throws ApiException 404 if the caller does not reach it, 400 naming {@code namespace} if it does not exist
     */
    String namespaceForNew(ApiExchange ctx, String requested) {
        if (requested != null) {
            String problem = Namespaces.problem(requested);
            if (problem != null) {
                throw ApiException.invalidField("namespace", requested, problem);
            }
        }
        String namespace = CallerExchange.caller(ctx).namespaceFor(requested);
        if (requested != null && access.namespace(namespace).isEmpty()) {
            throw ApiException.badField("invalid_field", "namespace", "namespace " + ApiException.quoted(namespace)
                    + " does not exist; create it with POST /api/namespaces");
        }
        CallerExchange.changedIn(ctx, namespace);
        return namespace;
    }

    /** A change is audited with the namespace it was made in, so the route reads it even for a caller of all. */
    private static boolean isAudited(ApiExchange ctx) {
        return !"GET".equals(ctx.method());
    }

    private static ApiException instanceNotFound(long id) {
        return ApiException.notFound("instance " + id + " does not exist");
    }
}
