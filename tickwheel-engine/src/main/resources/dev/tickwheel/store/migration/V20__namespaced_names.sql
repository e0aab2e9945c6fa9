-- Tickwheel store schema, version 20: calendars and pools belong to namespaces. A calendar or pool outside the default
-- namespace is stored, and named by its jobs, as '<namespace>/<local name>' (at most 64 + 1 + 100 characters); those
-- of the default namespace keep their bare names, so nothing stored before changes meaning.

ALTER TABLE tw_calendar ALTER COLUMN name SET DATA TYPE VARCHAR(200);
ALTER TABLE tw_job ALTER COLUMN calendar_name SET DATA TYPE VARCHAR(200);
ALTER TABLE tw_pool ALTER COLUMN name SET DATA TYPE VARCHAR(200);
ALTER TABLE tw_job ALTER COLUMN pool_name SET DATA TYPE VARCHAR(200);
