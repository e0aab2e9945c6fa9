-- Tickwheel store schema, version 14: reruns. An instance made by rerunning another names it; NULL for every other
-- instance. Not a foreign key: the original may be deleted by retention before its rerun.
ALTER TABLE tw_instance ADD COLUMN rerun_of BIGINT;
