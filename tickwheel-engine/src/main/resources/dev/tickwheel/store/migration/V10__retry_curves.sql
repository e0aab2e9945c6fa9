-- Tickwheel store schema, version 10: retry curves and lists of delays (RetryPolicy). The defaults describe the fixed
-- backoff every job had before, so existing rows keep their behaviour.

-- The factor the wait grows by after each failed attempt (1: a fixed backoff).
ALTER TABLE tw_job ADD COLUMN retry_multiplier DOUBLE PRECISION DEFAULT 1 NOT NULL;
-- The longest wait of the curve, in milliseconds.
ALTER TABLE tw_job ADD COLUMN retry_max_backoff_ms BIGINT DEFAULT 86400000 NOT NULL;
-- NONE, FULL or EQUAL.
ALTER TABLE tw_job ADD COLUMN retry_jitter VARCHAR(8) DEFAULT 'NONE' NOT NULL;
-- The waits after the first, second, ... failed attempt, comma-separated milliseconds; NULL for a curve.
ALTER TABLE tw_job ADD COLUMN retry_delays_ms VARCHAR(2048);
