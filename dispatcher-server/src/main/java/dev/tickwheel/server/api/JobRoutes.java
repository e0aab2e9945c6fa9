package dev.tickwheel.server.api;

import dev.tickwheel.server.JobService;
import dev.tickwheel.server.api.dto.JobRequest;
import dev.tickwheel.server.api.dto.JobResponse;
import dev.tickwheel.server.api.dto.PageResponse;
import dev.tickwheel.server.api.dto.RunRequest;
import dev.tickwheel.server.api.dto.RunResponse;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.store.JobNameCursor;
import dev.tickwheel.server.store.Page;
import io.javalin.http.Context;
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
    private final JobRequestParser parser;
    private final JsonBodyReader bodies;
    private final ApiViews views;
    private final QueryParams query = new QueryParams();

    JobRoutes(JobService jobs, JobRequestParser parser, JsonBodyReader bodies, ApiViews views) {
        this.jobs = jobs;
        this.parser = parser;
        this.bodies = bodies;
        this.views = views;
    }

    void create(Context ctx) {
        JobRequest request = bodies.read(ctx, JobRequest.class, true);
        Job job = jobs.create(parser.parse(request));
        ctx.status(201).header("Location", "/api/jobs/" + job.id()).json(views.job(job));
    }

    /** Jobs by (name, id), optionally those whose name contains {@code name} (ignoring case). */
    void list(Context ctx) {
        String name = query.text(ctx, "name", JobRequestParser.MAX_NAME_LENGTH);
        JobNameCursor after = PageCursors.decodeJob(ctx.queryParam("cursor"));
        Page<Job, JobNameCursor> page = jobs.search(name, after, query.limit(ctx));
        ctx.json(new PageResponse<>(page.items().stream().map(views::job).toList(),
                page.nextCursor().map(PageCursors::encodeJob).orElse(null)));
    }

    void get(Context ctx) {
        long id = jobId(ctx);
        ctx.json(found(id, jobs.get(id)));
    }

    void update(Context ctx) {
        long id = jobId(ctx);
        JobRequest request = bodies.read(ctx, JobRequest.class, true);
        ctx.json(found(id, jobs.update(id, parser.parse(request))));
    }

    void delete(Context ctx) {
        long id = jobId(ctx);
        if (!jobs.delete(id)) {
            throw notFound(id);
        }
        ctx.status(204);
    }

    void enable(Context ctx) {
        long id = jobId(ctx);
        ctx.json(found(id, jobs.setEnabled(id, true)));
    }

    void disable(Context ctx) {
        long id = jobId(ctx);
        ctx.json(found(id, jobs.setEnabled(id, false)));
    }

    void run(Context ctx) {
        long id = jobId(ctx);
        RunRequest request = bodies.read(ctx, RunRequest.class, false);
        long delayMs = request == null || request.delayMs() == null ? 0 : request.delayMs();
        if (delayMs < 0 || delayMs > MAX_RUN_DELAY_MS) {
            throw ApiException.invalidField("delayMs", delayMs, "must be in 0.." + MAX_RUN_DELAY_MS);
        }
        String params = request == null ? null : JobRequestParser.paramsText(request.params());
        Instance instance;
        try {
            instance = jobs.run(id, delayMs, params);
        } catch (NoSuchElementException e) {
            throw notFound(id);
        }
        ctx.status(201).header("Location", "/api/instances/" + instance.id())
                .json(new RunResponse(Long.toString(instance.id()), instance.expectedTriggerTime()));
    }

    private static long jobId(Context ctx) {
        return RequestIds.pathId(ctx.pathParam("id"));
    }

    private JobResponse found(long id, Optional<Job> job) {
        return views.job(job.orElseThrow(() -> notFound(id)));
    }

    private static ApiException notFound(long id) {
        return ApiException.notFound("job " + id + " does not exist");
    }
}
