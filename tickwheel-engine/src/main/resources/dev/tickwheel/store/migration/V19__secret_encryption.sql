-- Tickwheel store schema, version 19: secrets at rest. A server given a secret key keeps the jobs' signing secrets and
-- the cluster's callback key encrypted (store.SecretBox: AES-256-GCM, "tw1:<key id>:<base64url>"); without one it
-- keeps them as given. Existing values are left as they are here: the first server started with a key encrypts them
-- (store.jdbc.SecretsAtRest), in batches.

-- Room for the encrypted form of the longest secret (256 characters, up to 768 bytes of UTF-8: 1 075 characters).
ALTER TABLE tw_job ALTER COLUMN signing_secret SET DATA TYPE VARCHAR(2048);
-- The key id signing_secret is encrypted under, 'plain' for a secret kept as given, NULL for no secret. The start's
-- check reads the ids in use from the index (a few probes, whatever the table's size), and re-encryption walks one id's
-- rows in id order.
ALTER TABLE tw_job ADD COLUMN signing_secret_key_id VARCHAR(16);
UPDATE tw_job SET signing_secret_key_id = 'plain' WHERE signing_secret IS NOT NULL;
CREATE INDEX tw_job_secret_key_idx ON tw_job (signing_secret_key_id, id);
-- The callback key encrypted (its form says whether it is: 64 hex digits are plain).
ALTER TABLE tw_cluster ALTER COLUMN callback_key SET DATA TYPE VARCHAR(256);
