-- Tickwheel store schema, version 15: outputs. The JSON a target answered a successful attempt with (a webhook's
-- response body, a handler's JobContext output, a callback's "output"), at most Instance.MAX_OUTPUT_LENGTH characters;
-- NULL when it gave none.
ALTER TABLE tw_instance ADD COLUMN output VARCHAR(8192);
