-- Tickwheel store schema, version 2: delivery policy per job, and the AT_MOST_ONCE call marker per instance.

-- AT_LEAST_ONCE (a call cut by a crash is made again, same Idempotency-Key) or AT_MOST_ONCE (it is not).
ALTER TABLE tw_job ADD COLUMN delivery_guarantee VARCHAR(16) DEFAULT 'AT_LEAST_ONCE' NOT NULL;
-- Whole-call deadline of one attempt; 0 = the server's default.
ALTER TABLE tw_job ADD COLUMN timeout_ms BIGINT DEFAULT 0 NOT NULL;
-- Instances of the job in flight at once; 0 = no per-job limit.
ALTER TABLE tw_job ADD COLUMN max_concurrent INTEGER DEFAULT 0 NOT NULL;
-- WAIT for a slot or SKIP an instance that fires while the job is at max_concurrent.
ALTER TABLE tw_job ADD COLUMN over_limit VARCHAR(8) DEFAULT 'WAIT' NOT NULL;

-- Set (AT_MOST_ONCE jobs only) just before the call starts: after a crash, a DISPATCHING row without it had not
-- called its target and is dispatched again; one with it is INTERRUPTED.
ALTER TABLE tw_instance ADD COLUMN call_started_at_ms BIGINT;

-- One row that a running server keeps locked (H2; PostgreSQL uses an advisory lock): a second server on the same
-- store refuses to start instead of settling the first one's calls.
CREATE TABLE tw_server_lock (
    id INTEGER NOT NULL PRIMARY KEY
);
INSERT INTO tw_server_lock (id) VALUES (1);
