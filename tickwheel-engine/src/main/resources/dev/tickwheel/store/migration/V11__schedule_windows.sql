-- Tickwheel store schema, version 11: a schedule's window and jitter (ScheduleWindow), and the count of instances its
-- schedule has created, which maxRuns bounds. NULL means none; existing jobs keep their behaviour.

-- Each instance is due up to this many milliseconds after its trigger time.
ALTER TABLE tw_job ADD COLUMN schedule_jitter_ms BIGINT;
-- TRUE: one jitter per job rather than one per trigger.
ALTER TABLE tw_job ADD COLUMN schedule_spread BOOLEAN DEFAULT FALSE NOT NULL;
-- No trigger time before this, and none after that.
ALTER TABLE tw_job ADD COLUMN schedule_start_at_ms BIGINT;
ALTER TABLE tw_job ADD COLUMN schedule_end_at_ms BIGINT;
-- At most this many instances from the schedule.
ALTER TABLE tw_job ADD COLUMN schedule_max_runs INTEGER;
-- How many instances loaders have created from the schedule so far, advanced with the job's next trigger time.
ALTER TABLE tw_job ADD COLUMN scheduled_runs BIGINT DEFAULT 0 NOT NULL;
