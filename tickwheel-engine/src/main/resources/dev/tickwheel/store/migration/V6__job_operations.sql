-- Tickwheel store schema, version 6: how a job is operated (JobOperations). NULL everywhere means "the server's
-- setting" (retention, alert webhook) or "calls are not signed".

-- Days a finished instance of the job is kept before the retention purge deletes it.
ALTER TABLE tw_job ADD COLUMN retention_days INTEGER;
-- Where the job's failure alerts go.
ALTER TABLE tw_job ADD COLUMN alert_url VARCHAR(2048);
-- The HMAC-SHA256 key of the job's webhook calls. Stored as given: the server needs the key itself to sign, so a hash
-- would not do; protect the database (and its backups) as you protect the secret.
ALTER TABLE tw_job ADD COLUMN signing_secret VARCHAR(256);
