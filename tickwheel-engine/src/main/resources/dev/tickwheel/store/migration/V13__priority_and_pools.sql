-- Tickwheel store schema, version 13: priority among due instances, and named pools that share concurrency and a
-- rate among their jobs (InstancePool). The defaults keep existing jobs and instances as they were.

-- Admission order when call slots are short: 0..9, higher first.
ALTER TABLE tw_job ADD COLUMN priority SMALLINT DEFAULT 5 NOT NULL;
-- An instance's own priority (an on-demand run's); NULL means its job's.
ALTER TABLE tw_instance ADD COLUMN priority SMALLINT;

CREATE TABLE tw_pool (
    name            VARCHAR(100) NOT NULL PRIMARY KEY,
    -- Calls in flight of all the pool's jobs together, at most; 0 for no limit.
    max_concurrent  INTEGER      NOT NULL,
    -- At most rate_permits calls start in any rate_per_ms milliseconds; both 0 for no rate.
    rate_permits    INTEGER      NOT NULL,
    rate_per_ms     BIGINT       NOT NULL,
    created_at_ms   BIGINT       NOT NULL
);

-- A pool in use cannot be deleted (JdbcPoolStore checks first; the key holds under any race).
ALTER TABLE tw_job ADD COLUMN pool_name VARCHAR(100);
ALTER TABLE tw_job ADD CONSTRAINT tw_job_pool_fk FOREIGN KEY (pool_name) REFERENCES tw_pool (name);
