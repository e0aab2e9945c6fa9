-- Tickwheel store schema, version 1. Runs unchanged on H2 2.x and PostgreSQL 12+.
-- Every time is epoch milliseconds (UTC) in a BIGINT: identical on both databases, no time-zone conversions.

CREATE TABLE tw_job (
    id                   BIGINT        NOT NULL PRIMARY KEY,
    name                 VARCHAR(200)  NOT NULL,
    schedule_type        VARCHAR(16)   NOT NULL,
    schedule_expression  VARCHAR(512),
    schedule_zone        VARCHAR(64),
    schedule_period_ms   BIGINT,
    schedule_delay_ms    BIGINT,
    schedule_at_ms       BIGINT,
    target_type          VARCHAR(16)   NOT NULL,
    target_value         VARCHAR(2048) NOT NULL,
    params               VARCHAR,
    enabled              BOOLEAN       NOT NULL,
    misfire_policy       VARCHAR(16)   NOT NULL,
    retry_max_attempts   INTEGER       NOT NULL,
    retry_backoff_ms     BIGINT        NOT NULL,
    next_trigger_time_ms BIGINT,
    created_at_ms        BIGINT        NOT NULL,
    updated_at_ms        BIGINT        NOT NULL,
    version              BIGINT        NOT NULL
);

-- The loaders' query: enabled jobs with next_trigger_time_ms <= ?, keyset-paged by (next_trigger_time_ms, id).
CREATE INDEX tw_job_due_idx ON tw_job (enabled, next_trigger_time_ms, id);

CREATE TABLE tw_instance (
    id                        BIGINT      NOT NULL PRIMARY KEY,
    job_id                    BIGINT      NOT NULL,
    status                    VARCHAR(16) NOT NULL,
    -- The schedule slot this instance fills; never changes. NULL for on-demand (API) runs, which are never
    -- deduplicated: both databases treat NULLs as distinct in a unique index.
    scheduled_trigger_time_ms BIGINT,
    -- When the current or next attempt is due: the scheduled time at first, moved later by a retry.
    expected_trigger_time_ms  BIGINT      NOT NULL,
    actual_trigger_time_ms    BIGINT,
    attempt                   INTEGER     NOT NULL,
    error                     VARCHAR,
    params                    VARCHAR,
    created_at_ms             BIGINT      NOT NULL,
    updated_at_ms             BIGINT      NOT NULL
);

-- A loader that runs twice cannot create a second instance for the same schedule slot.
CREATE UNIQUE INDEX tw_instance_slot_uk ON tw_instance (job_id, scheduled_trigger_time_ms);

-- Start-up recovery and the dashboard: instances in a status, paged by id.
CREATE INDEX tw_instance_status_idx ON tw_instance (status, id);

-- Listing one job's instances, and cancelling a deleted job's waiting instances.
CREATE INDEX tw_instance_job_idx ON tw_instance (job_id, id);
