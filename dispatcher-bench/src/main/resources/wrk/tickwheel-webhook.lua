-- wrk script: POSTs shaped like Tickwheel's webhook calls, each with its own Idempotency-Key, to check that
-- LoadReceiver keeps up (see its javadoc). Each wrk thread has its own Lua state; the thread number keeps keys apart.
local thread_count = 0
function setup(thread)
  thread_count = thread_count + 1
  thread:set("base", thread_count * 1000000000)
end

local n = 0
function request()
  n = n + 1
  local id = tostring((base or 1000000000) + n)
  local body = '{"instanceId":"' .. id .. '","jobId":"1","jobName":"wrk","params":null,'
      .. '"expectedTriggerTime":"2026-01-01T00:00:00Z","attempt":1}'
  return wrk.format("POST", nil, {["Content-Type"] = "application/json", ["Idempotency-Key"] = id .. "-1"}, body)
end
