package dev.tickwheel.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tickwheel.server.JobService;
import dev.tickwheel.server.JobSpec;
import dev.tickwheel.server.RunSpec;
import dev.tickwheel.server.api.dto.JobRequest;
import dev.tickwheel.server.api.dto.JobResponse;
import dev.tickwheel.server.api.dto.PageResponse;
import dev.tickwheel.server.api.dto.RunRequest;
import dev.tickwheel.server.api.dto.RunsRequest;
import dev.tickwheel.server.api.dto.RunsResponse;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.instance.RunKeys;
import dev.tickwheel.server.instance.RunWrite;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.store.JobNameCursor;
import dev.tickwheel.server.store.Page;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;

/**
 * Handlers of {@code /api/jobs…}. Every body is parsed and checked before the engine is called, and the engine
 * validates the schedule before it writes, so a refused request writes nothing.
 *
 * <p>Thread-safe (immutable; the services are thread-safe).
 */
final class JobRoutes {

    static final long MAX_RUN_DELAY_MS = JobService.MAX_RUN_DELAY_MS;

    private final JobService jobs;
    private final Scopes scopes;
    private final JobRequestParser parser;
    private final JsonBodyReader bodies;
    private final ApiViews views;
    private final QueryParams query = new QueryParams();

    JobRoutes(JobService jobs, Scopes scopes, JobRequestParser parser, JsonBodyReader bodies, ApiViews views) {
        this.jobs = jobs;
        this.scopes = scopes;
        this.parser = parser;
        this.bodies = bodies;
        this.views = views;
    }

    void create(ApiExchange ctx) {
        JobRequest request = bodies.read(ctx, JobRequest.class, true);
        String namespace = scopes.namespaceForNew(ctx, request.namespace());
        JobSpec spec = parser.parse(request, namespace);
        Job job = jobs.create(spec, namespace);
        ctx.status(201).header("Location", "/api/jobs/" + job.id()).json(views.job(job, namespace));
    }

    /** Jobs by (name, id), optionally those whose name contains {@code name} (ignoring case). */
    void list(ApiExchange ctx) {
        String name = query.text(ctx, "name", JobRequestParser.MAX_NAME_LENGTH);
        JobNameCursor after = PageCursors.decodeJob(ctx.queryParam("cursor"));
        Page<Job, JobNameCursor> page = jobs.search(name, after, query.limit(ctx), scopes.listedNamespace(ctx));
        Map<Long, String> namespaces = scopes.namespacesOf(page.items().stream().map(Job::id).toList());
        ctx.json(new PageResponse<>(page.items().stream().map(j -> views.job(j, namespaces.get(j.id()))).toList(),
                page.nextCursor().map(PageCursors::encodeJob).orElse(null)));
    }

    void get(ApiExchange ctx) {
        long id = jobId(ctx);
        ctx.json(found(id, jobs.get(id)));
    }

    /** Replaces the definition; the audit trail gets each changed field's old and new value. */
    void update(ApiExchange ctx) {
        long id = jobId(ctx);
        JobRequest request = bodies.read(ctx, JobRequest.class, true);
        String namespace = scopes.namespaceOf(id);
        if (request.namespace() != null && !request.namespace().equals(namespace)) {
            throw ApiException.invalidField("namespace", request.namespace(), "a job's namespace cannot change;"
                    + " it is " + ApiException.quoted(namespace));
        }
        JobSpec spec = parser.parse(request, namespace);
        Optional<Job> before = jobs.get(id);
        JobResponse after = found(id, jobs.update(id, spec));
        before.ifPresent(old -> {
            Map<String, Map<String, JsonNode>> changed = views.changes(views.job(old, namespace), after);
            if (request.signingSecret() != null) {
                changed.put("signingSecret", Map.of()); // set again (maybe the same): the trail masks its value
            }
            CallerExchange.changed(ctx, changed);
        });
        ctx.json(after);
    }

    void delete(ApiExchange ctx) {
        long id = jobId(ctx);
        if (!jobs.delete(id)) {
            throw notFound(id);
        }
        ctx.status(204);
    }

    void enable(ApiExchange ctx) {
        long id = jobId(ctx);
        ctx.json(found(id, jobs.setEnabled(id, true)));
    }

    void disable(ApiExchange ctx) {
        long id = jobId(ctx);
        ctx.json(found(id, jobs.setEnabled(id, false)));
    }

    /**
     * One run: 201 with {@code "created": true}, or 200 with {@code "created": false} when its key names an existing
     * instance of the job (returned whatever its status, params or time).
     */
    void run(ApiExchange ctx) {
        long id = jobId(ctx);
        RunRequest request = bodies.read(ctx, RunRequest.class, false);
        RunSpec spec = runSpec(request, "");
        RunWrite written;
        try {
            written = jobs.run(id, spec);
        } catch (NoSuchElementException e) {
            throw notFound(id);
        } catch (IllegalArgumentException e) {
            throw ApiException.badField("invalid_field", "at", e.getMessage());
        }
        Instance instance = written.instance();
        ctx.status(written.created() ? 201 : 200).header("Location", "/api/instances/" + instance.id())
                .json(ApiViews.run(written));
    }

    /** Up to 1 000 runs in one transaction; a bad item is a 400 naming its index, and nothing is written. */
    void runs(ApiExchange ctx) {
        long id = jobId(ctx);
        RunsRequest request = bodies.read(ctx, RunsRequest.class, true, JsonBodyReader.MAX_BATCH_BODY_BYTES);
        if (request.runs() == null) {
            throw ApiException.missingField("runs");
        }
        int count = request.runs().size();
        if (count == 0 || count > JobService.MAX_RUNS_PER_CALL) {
            throw ApiException.invalidField("runs", count + " items", "must have 1.." + JobService.MAX_RUNS_PER_CALL
                    + " items");
        }
        List<RunSpec> specs = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            RunRequest item = request.runs().get(i);
            if (item == null) {
                throw ApiException.badField("invalid_field", "runs[" + i + "]", "field 'runs[" + i + "]' must be a"
                        + " JSON object, got null");
            }
            specs.add(runSpec(item, "runs[" + i + "]."));
        }
        List<RunWrite> written;
        try {
            written = jobs.runAll(id, specs);
        } catch (NoSuchElementException e) {
            throw notFound(id);
        }
        ctx.json(new RunsResponse(written.stream().map(ApiViews::run).toList()));
    }

    private static RunSpec runSpec(RunRequest request, String prefix) {
        if (request == null) {
            return RunSpec.after(0, null);
        }
        if (request.key() != null) {
            String problem = RunKeys.callerProblem(request.key());
            if (problem != null) {
                throw ApiException.badField("invalid_field", prefix + "key", "field '" + prefix + "key': " + problem);
            }
        }
        // delayMs 0 is the documented default: sent beside at (as generated clients send every default), it means
        // what its absence means, and at says when; any other delay beside at is still refused.
        Long delayMs = request.at() != null && Long.valueOf(0).equals(request.delayMs()) ? null : request.delayMs();
        return RunTimes.spec(request.key(), delayMs, request.at(), request.params(), request.priority(), prefix);
    }


    /** The {@code {id}} path parameter, of a job the caller reaches (else 404). */
    private long jobId(ApiExchange ctx) {
        long id = RequestIds.pathId(ctx.pathParam("id"));
        scopes.requireJob(ctx, id);
        return id;
    }

    private JobResponse found(long id, Optional<Job> job) {
        return views.job(job.orElseThrow(() -> notFound(id)), scopes.namespaceOf(id));
    }

    private static ApiException notFound(long id) {
        return ApiException.notFound("job " + id + " does not exist");
    }
}
