-- Tickwheel store schema, version 4: the two per-shard instance indexes of version 3 go again.
--
-- A status change cannot be a heap-only update (status is indexed), so every claim and every settle writes one entry
-- into every index of tw_instance: two more indexes made the hot path a half again as expensive in index writes, for
-- queries that are rare (a shard's recovery, the foreign-claim and sweep passes every loader period) and that the
-- (status, id) index of version 1 serves well enough: it walks the rows of one status in id order and the shard and
-- due-time conditions filter them (WAITING and DISPATCHING rows are the few live ones, never the finished history).
DROP INDEX tw_instance_shard_status_idx;
DROP INDEX tw_instance_shard_due_idx;
