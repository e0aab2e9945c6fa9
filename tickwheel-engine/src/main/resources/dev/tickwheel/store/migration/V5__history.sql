-- Tickwheel store schema, version 5: the history the console reads. Runs unchanged on H2 2.x and PostgreSQL 12+.

-- One row per attempt that failed and was retried, written by the retry itself in the same transaction as the
-- instance's DISPATCHING -> WAITING compare-and-set (and only if that succeeded). The current or last attempt is not
-- here: it is the instance row itself (actual trigger time, error, claim node and epoch), which a reader turns into
-- the last attempt. A claim released by a stop or a crash writes nothing: the next claim makes the same attempt again.
-- The instance's history goes with the instance (ON DELETE CASCADE); nothing deletes instances today.
CREATE TABLE tw_attempt (
    instance_id              BIGINT  NOT NULL,
    attempt                  INTEGER NOT NULL,
    -- When the attempt was claimed (the instance's actual trigger time then), and when its retry was decided.
    started_at_ms            BIGINT,
    ended_at_ms              BIGINT  NOT NULL,
    -- When the attempt was due: its lateness is started_at_ms - expected_trigger_time_ms.
    expected_trigger_time_ms BIGINT  NOT NULL,
    error                    VARCHAR,
    -- Who made the attempt: the claimant's node id and the lease epoch it claimed under (-1 and 0 if unknown).
    claim_node               INTEGER NOT NULL,
    claim_epoch              BIGINT  NOT NULL,
    CONSTRAINT tw_attempt_pk PRIMARY KEY (instance_id, attempt),
    CONSTRAINT tw_attempt_instance_fk FOREIGN KEY (instance_id) REFERENCES tw_instance (id) ON DELETE CASCADE
);

-- The console's job listing: every job by (name, id), keyset-paged, optionally filtered by a substring of the name
-- (which no index serves; the walk in index order stops after a page of matches).
CREATE INDEX tw_job_name_idx ON tw_job (name, id);

-- The instance history needs no new index: newest first by id is the primary key read backwards, by status the
-- (status, id) index and by job the (job_id, id) index of version 1; a creation-time range is an id range (IDs are
-- Snowflake IDs, whose high bits are the creation millisecond).
