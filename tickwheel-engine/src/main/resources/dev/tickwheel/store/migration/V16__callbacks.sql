-- Tickwheel store schema, version 16: webhooks that finish later (completion CALLBACK).
-- A job says how its attempts end: IMMEDIATE (the call's answer) or CALLBACK (a later report to the call's callback
-- URL, within callback_timeout_ms of the answer or of the last heartbeat).
ALTER TABLE tw_job ADD COLUMN completion VARCHAR(16) DEFAULT 'IMMEDIATE' NOT NULL;
ALTER TABLE tw_job ADD COLUMN callback_timeout_ms BIGINT DEFAULT 0 NOT NULL;
-- An instance DISPATCHING whose target accepted the call and has not reported yet: when its report is due at the
-- latest (epoch milliseconds, by the clock of the member that took the answer or the last heartbeat). NULL while the
-- call is in flight, and for every other instance.
ALTER TABLE tw_instance ADD COLUMN callback_deadline_ms BIGINT;
-- The key of the callback URLs' tokens (HMAC-SHA256, hex), made by the first member that opens the store: every
-- member checks a token any member issued.
ALTER TABLE tw_cluster ADD COLUMN callback_key VARCHAR(64);
