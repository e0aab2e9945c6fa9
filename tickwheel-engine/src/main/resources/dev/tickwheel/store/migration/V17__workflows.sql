-- Tickwheel store schema, version 17: workflows of jobs. A workflow is a DAG of nodes, each naming a job, and edges
-- with a condition on the parent's final status; a run of it creates the instance of a node once every incoming
-- edge's condition holds, in the transaction that records the last parent's final status.

CREATE TABLE tw_workflow (
    id             BIGINT        NOT NULL PRIMARY KEY,
    name           VARCHAR(200)  NOT NULL,
    -- The DAG as JSON: {"nodes": [{"id", "jobId"}], "edges": [{"from", "to", "on"}]}. A workflow is not changed
    -- once created, so a run reads the definition it started with.
    definition     VARCHAR(65536) NOT NULL,
    -- The job that starts its runs on a schedule (a handler job of WorkflowService.TRIGGER_HANDLER), or NULL for a
    -- workflow run only through the API.
    trigger_job_id BIGINT,
    created_at_ms  BIGINT        NOT NULL
);

CREATE TABLE tw_workflow_run (
    id             BIGINT        NOT NULL PRIMARY KEY,
    workflow_id    BIGINT        NOT NULL,
    -- The caller's key (unique per workflow), or NULL.
    run_key        VARCHAR(200),
    -- RUNNING, then SUCCEEDED, FAILED or CANCELLED.
    status         VARCHAR(16)   NOT NULL,
    -- Parameters handed to every node's instance (JSON text), or NULL for each job's own.
    params         VARCHAR(65536),
    created_at_ms  BIGINT        NOT NULL,
    updated_at_ms  BIGINT        NOT NULL,
    CONSTRAINT tw_workflow_run_workflow_fk FOREIGN KEY (workflow_id) REFERENCES tw_workflow (id)
);
CREATE UNIQUE INDEX tw_workflow_run_key_uk ON tw_workflow_run (workflow_id, run_key);
-- The sweep reads the runs still RUNNING.
CREATE INDEX tw_workflow_run_status_idx ON tw_workflow_run (status, id);

-- One row per node of a run: PENDING until its instance is created (STARTED), then its instance's final status
-- (SUCCEEDED, FAILED, CANCELLED, INTERRUPTED), or SKIPPED when its edges can no longer hold.
CREATE TABLE tw_workflow_node_run (
    run_id         BIGINT        NOT NULL,
    node_id        VARCHAR(100)  NOT NULL,
    status         VARCHAR(16)   NOT NULL,
    instance_id    BIGINT,
    PRIMARY KEY (run_id, node_id)
);

-- An instance of a node names its run and node; upstream is the JSON its context gets: each parent's instance id,
-- final status and output.
ALTER TABLE tw_instance ADD COLUMN workflow_run_id BIGINT;
ALTER TABLE tw_instance ADD COLUMN workflow_node VARCHAR(100);
ALTER TABLE tw_instance ADD COLUMN upstream VARCHAR(65536);
