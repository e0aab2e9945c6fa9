package dev.tickwheel.server;

import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.instance.Instance;
import dev.tickwheel.server.schedule.ShardOwner;
import dev.tickwheel.server.store.InstanceStore;
import dev.tickwheel.server.store.JobStore;
import dev.tickwheel.server.store.WorkflowCancel;
import dev.tickwheel.server.store.WorkflowStart;
import dev.tickwheel.server.store.WorkflowStore;
import dev.tickwheel.server.workflow.Workflow;
import dev.tickwheel.server.workflow.WorkflowRun;
import dev.tickwheel.time.ScheduleSpec;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;

/**
 * Workflows of jobs: a DAG of nodes, each naming a job, and edges with a condition on the parent's final status
 * ({@link Workflow}); runs of them ({@link WorkflowRun}). A run's first nodes get their instances when it starts; every
 * later node gets its instance in the transaction that records its last parent's final status (see
 * {@code store.jdbc.WorkflowSteps}), on whichever member that happens, and its shard's owner arms it.
 *
 * <p>Thread-safe.
 */
public final class WorkflowService {

    /** What {@link #run} wrote. */
    public record Started(WorkflowRun run, boolean created) {
    }

    /**
     * The in-process handler of the jobs that start scheduled workflows' runs (a reserved name): each instance of such
     * a job starts one run, keyed by the instance, so a retried or repeated trigger starts it once.
     */
    public static final String TRIGGER_HANDLER = "tickwheel.workflow-trigger";
    private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
            new com.fasterxml.jackson.databind.ObjectMapper();

    private final WorkflowStore workflows;
    private final InstanceStore instances;
    private final InstanceStore engineInstances;
    private final JobStore jobs;
    private final ShardOwner owner;
    private final SnowflakeIdGenerator ids;
    private final Clock clock;
    /** Set once the job service exists (it is made after this one's dependencies); creates trigger jobs. */
    private volatile JobService jobService;

    /**
     * @param instances       the API callers' store (bounded waits)
     * @param engineInstances the engine's own store, for the loader pass's sweep
     */
    WorkflowService(WorkflowStore workflows, InstanceStore instances, InstanceStore engineInstances, JobStore jobs,
                    ShardOwner owner, SnowflakeIdGenerator ids, Clock clock) {
        this.workflows = Objects.requireNonNull(workflows, "workflows");
        this.instances = Objects.requireNonNull(instances, "instances");
        this.engineInstances = Objects.requireNonNull(engineInstances, "engineInstances");
        this.jobs = Objects.requireNonNull(jobs, "jobs");
        this.owner = Objects.requireNonNull(owner, "owner");
        this.ids = Objects.requireNonNull(ids, "ids");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    void useJobs(JobService jobs) {
        this.jobService = Objects.requireNonNull(jobs, "jobs");
    }

    /**
     * Stores a workflow. A schedule other than API gets a trigger job, {@code workflow: <name>}, with that schedule and
     * the {@link #TRIGGER_HANDLER} target, created first (so a bad schedule writes nothing): each of its instances
     * starts a run, keyed {@code trigger-<instanceId>}. It shows in the jobs like any job; disable it to pause the
     * schedule.
     *
     * @throws Workflow.InvalidWorkflowException naming the field at fault: a bad node or edge, a cycle, or a node
     *                                           whose job does not exist
     * @throws IllegalArgumentException          for a schedule a job would refuse
     */
    public Workflow create(String name, List<Workflow.Node> nodes, List<Workflow.Edge> edges, ScheduleSpec schedule) {
        return create(name, nodes, edges, schedule, dev.tickwheel.server.access.Namespaces.DEFAULT);
    }

    /**
     * {@link #create(String, List, List, ScheduleSpec)} whose trigger job (if it has a schedule) goes to
     * {@code namespace}: the namespace of the workflow's jobs, which a workflow belongs to.
     */
    public Workflow create(String name, List<Workflow.Node> nodes, List<Workflow.Edge> edges, ScheduleSpec schedule,
                           String namespace) {
        if (name == null || name.isBlank() || name.length() > 200) {
            throw new Workflow.InvalidWorkflowException("name", "a workflow's name is 1..200 characters");
        }
        Workflow.check(nodes, edges);
        var found = jobs.getAll(nodes.stream().map(Workflow.Node::jobId).distinct().toList());
        for (int i = 0; i < nodes.size(); i++) {
            if (!found.containsKey(nodes.get(i).jobId())) {
                throw new Workflow.InvalidWorkflowException("nodes[" + i + "].jobId", "no job "
                        + nodes.get(i).jobId());
            }
        }
        long id = ids.nextId();
        Long triggerJobId = null;
        if (schedule.type() != dev.tickwheel.time.ScheduleType.API) {
            triggerJobId = jobService.create(JobSpec.of("workflow: " + name.trim(), schedule,
                    dev.tickwheel.server.job.Target.handler(TRIGGER_HANDLER))
                    .withParams("{\"workflowId\": \"" + id + "\"}"), namespace).id();
        }
        Workflow workflow = new Workflow(id, name.trim(), nodes, edges, triggerJobId,
                Instant.ofEpochMilli(clock.millis()));
        workflows.insert(workflow);
        return workflow;
    }

    /** The {@link #TRIGGER_HANDLER}: starts one run of the workflow its job names, keyed by the instance. */
    void trigger(dev.tickwheel.server.dispatch.JobContext context) throws java.io.IOException {
        long workflowId = Long.parseLong(JSON.readTree(context.params()).get("workflowId").asText());
        Started started = run(workflowId, "trigger-" + context.instanceId(), null);
        context.setOutput("{\"workflowRunId\": \"" + started.run().id() + "\"}");
    }

    public Optional<Workflow> get(long id) {
        return workflows.get(id);
    }

    /** Every workflow, by id. */
    public List<Workflow> list() {
        return workflows.list();
    }

    /**
     * Starts a run of workflow {@code workflowId}: its first nodes' instances are created with it and armed. With a
     * key that names a run of this workflow already, that run is answered and nothing is written.
     *
     * @param key    the caller's key (see {@code instance.RunKeys}), or null
     * @param params handed to every node's instance instead of its job's (JSON text), or null
     * @throws NoSuchElementException if there is no such workflow
     */
    public Started run(long workflowId, String key, String params) {
        if (key != null) {
            dev.tickwheel.server.instance.RunKeys.checkCaller(key);
        }
        WorkflowStart start = instances.startWorkflowRun(ids.nextId(), workflowId, key, params, ids::nextId);
        start.instances().forEach(owner::stored);
        return new Started(start.run(), start.created());
    }

    /** A run with every node's status and instance. */
    public Optional<WorkflowRun> getRun(long runId) {
        return instances.findWorkflowRun(runId);
    }

    /**
     * Cancels a run: pending nodes are skipped, waiting instances cancelled (and disarmed); an instance already
     * dispatching runs to its end, which then starts nothing. Empty if there is no such run.
     */
    public Optional<WorkflowCancel> cancelRun(long runId) {
        Optional<WorkflowCancel> cancel = instances.cancelWorkflowRun(runId);
        cancel.ifPresent(c -> c.cancelled().forEach(owner::cancelled));
        return cancel;
    }

    /** The sweep of the loader pass: steps runs whose node ended by a way that does not step (see the store). */
    void advance() {
        List<Instance> created = engineInstances.advanceWorkflowRuns(500, ids::nextId);
        created.forEach(owner::stored);
    }
}
