-- Tickwheel store schema, version 18: namespaces, API tokens with roles, and the audit trail.

-- A namespace groups one team's jobs (and their instances). 'default' always exists: a single team never names one.
CREATE TABLE tw_namespace (
    name          VARCHAR(64) NOT NULL PRIMARY KEY,
    created_at_ms BIGINT      NOT NULL
);
INSERT INTO tw_namespace (name, created_at_ms) VALUES ('default', 0);

-- The namespace of every job created since this version, kept after the job is deleted so that its instances
-- (history) stay in their namespace. A job never changes namespace. Written in the job's insert transaction. A job
-- without a row (one deleted before this version) is in 'default': no scan of the instance history is needed here.
CREATE TABLE tw_job_namespace (
    job_id    BIGINT      NOT NULL PRIMARY KEY,
    namespace VARCHAR(64) NOT NULL,
    CONSTRAINT tw_job_namespace_fk FOREIGN KEY (namespace) REFERENCES tw_namespace (name)
);
CREATE INDEX tw_job_namespace_ns_idx ON tw_job_namespace (namespace, job_id);
INSERT INTO tw_job_namespace (job_id, namespace) SELECT id, 'default' FROM tw_job;

-- API tokens. The secret is never stored: only its SHA-256 (a token is 256 random bits, so a fast hash is enough; see
-- TokenSecrets). namespace NULL: every namespace.
CREATE TABLE tw_api_token (
    id              BIGINT       NOT NULL PRIMARY KEY,
    name            VARCHAR(100) NOT NULL,
    namespace       VARCHAR(64),
    role            VARCHAR(16)  NOT NULL,
    secret_sha256   VARCHAR(64)  NOT NULL,
    created_at_ms   BIGINT       NOT NULL,
    expires_at_ms   BIGINT,
    revoked_at_ms   BIGINT,
    last_used_at_ms BIGINT,
    CONSTRAINT tw_api_token_ns_fk FOREIGN KEY (namespace) REFERENCES tw_namespace (name)
);
CREATE UNIQUE INDEX tw_api_token_secret_uk ON tw_api_token (secret_sha256);
CREATE UNIQUE INDEX tw_api_token_name_uk ON tw_api_token (name);

-- The audit trail: one row per change through the API or the console, newest first by id (a Snowflake id, so by
-- time). changes: JSON, secrets masked.
CREATE TABLE tw_audit (
    id        BIGINT        NOT NULL PRIMARY KEY,
    at_ms     BIGINT        NOT NULL,
    actor     VARCHAR(100)  NOT NULL,
    namespace VARCHAR(64),
    action    VARCHAR(100)  NOT NULL,
    target    VARCHAR(300),
    status    INT           NOT NULL,
    changes   VARCHAR(65536)
);
CREATE INDEX tw_audit_actor_idx ON tw_audit (actor, id);
CREATE INDEX tw_audit_ns_idx ON tw_audit (namespace, id);
