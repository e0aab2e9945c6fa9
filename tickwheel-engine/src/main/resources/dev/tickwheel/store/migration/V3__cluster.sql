-- Tickwheel store schema, version 3: cluster mode. Runs unchanged on H2 2.x and PostgreSQL 12+.
-- Every member of a cluster is one opened store with a random session (its fence token). Jobs and their instances
-- map to a fixed number of shards; a shard lease says which member owns a shard, under which epoch, until when.
-- Every expiry is judged by the database's clock (epoch milliseconds), never by a member's.

-- The store's fixed facts, in one row. A job's shard is Shards.of(job id, shard_count) and is stored in its rows, so
-- the count is fixed when the schema is created: changing it would move every job. JdbcStores reads it at open.
CREATE TABLE tw_cluster (
    id          INTEGER NOT NULL PRIMARY KEY CHECK (id = 1),
    shard_count INTEGER NOT NULL CHECK (shard_count > 0)
);
INSERT INTO tw_cluster (id, shard_count) VALUES (1, 256);

-- One row per node id a member has held, leased like a shard: the member renews expires_at_ms with its leases.
-- A node id is the node part of the Snowflake IDs the member mints, so an id is given to another session only once
-- it has been expired for a grace period (ClusterStore.NODE_ID_REUSE_GRACE): two processes never mint with it at
-- once. A graceful leave sets expires_at_ms to the leave time.
CREATE TABLE tw_node (
    node_id         INTEGER      NOT NULL PRIMARY KEY CHECK (node_id BETWEEN 0 AND 1023),
    session         BIGINT       NOT NULL,
    description     VARCHAR(200) NOT NULL,
    started_at_ms   BIGINT       NOT NULL,
    heartbeat_at_ms BIGINT       NOT NULL,
    expires_at_ms   BIGINT       NOT NULL
);

-- One row per shard, for ever (created here, never inserted or deleted later). owner_session = 0 means nobody holds
-- it (never held, or released); otherwise the owner holds it until expires_at_ms, and may renew it even after that
-- as long as nobody took it. epoch grows by one each time the shard changes hands (and only then), so (shard,
-- epoch) names one owner: an instance claimed under an epoch can be settled only while its claimant still holds
-- that epoch. No index beyond the primary key: 256 rows are read faster by a scan than through an index.
CREATE TABLE tw_shard_lease (
    shard          INTEGER NOT NULL PRIMARY KEY,
    owner_node     INTEGER DEFAULT -1 NOT NULL,
    owner_session  BIGINT  DEFAULT 0  NOT NULL,
    epoch          BIGINT  DEFAULT 0  NOT NULL,
    acquired_at_ms BIGINT  DEFAULT 0  NOT NULL,
    expires_at_ms  BIGINT  DEFAULT 0  NOT NULL
);
-- Shards 0 .. shard_count - 1, counted by a recursive query both databases run (no generate_series on H2, no
-- SYSTEM_RANGE on PostgreSQL).
INSERT INTO tw_shard_lease (shard)
WITH RECURSIVE shards (n) AS (
    SELECT 0
    UNION ALL
    SELECT n + 1 FROM shards WHERE n + 1 < (SELECT shard_count FROM tw_cluster WHERE id = 1)
)
SELECT n FROM shards;

-- The shard of a job and of every instance of it. Added with a default so existing rows survive the ALTER, then the
-- default is dropped at once: every insert must say the shard, and one that forgets fails (NOT NULL) instead of
-- silently landing in shard 0. Existing rows get their real shard from the Java migration that follows (version
-- 3.1, ShardsOfExistingRows): the shard is a hash only Java computes.
ALTER TABLE tw_job ADD COLUMN shard INTEGER DEFAULT 0 NOT NULL;
ALTER TABLE tw_job ALTER COLUMN shard DROP DEFAULT;
ALTER TABLE tw_instance ADD COLUMN shard INTEGER DEFAULT 0 NOT NULL;
ALTER TABLE tw_instance ALTER COLUMN shard DROP DEFAULT;

-- Who made the current or last claim: the claimant's node id and the epoch of the lease it claimed under, copied
-- from the lease row by the claim itself. -1 and 0 until the first claim (and for every existing row: a claim left
-- DISPATCHING by a single server before this version is a foreign claim to whoever holds its shard first).
ALTER TABLE tw_instance ADD COLUMN claim_node INTEGER DEFAULT -1 NOT NULL;
ALTER TABLE tw_instance ADD COLUMN claim_epoch BIGINT DEFAULT 0 NOT NULL;

-- A shard's instances in a status, by id: the WAITING rows of shards just acquired, paged by id (findWaiting without
-- a due-by bound), and the DISPATCHING rows of the shards a member holds (findForeignClaims).
CREATE INDEX tw_instance_shard_status_idx ON tw_instance (shard, status, id);

-- The sweep: a shard's WAITING rows due by a bound (findWaiting with a due-by bound).
CREATE INDEX tw_instance_shard_due_idx ON tw_instance (shard, status, expected_trigger_time_ms);
