-- wrk script of ApiLoadBenchmark's figure "2. keyed run (wrk)" (see dev.tickwheel.bench.api.WrkClient): POSTs to the
-- URL's path (POST /api/jobs/{id}/run) of {"key": "<nonce>-<thread>-<n>", "delayMs": TW_DELAY_MS}, a key no run had:
--   nonce   TW_NONCE, new for every wrk invocation of the benchmark run (the warm-up's keys are not the window's);
--   thread  the wrk thread's index, 0 .. threads-1, given to each thread by setup() (each wrk thread has a Lua state
--           of its own, so a counter alone would repeat across threads; math.random, unseeded, gives every thread the
--           same sequence);
--   n       the thread's own counter.
-- Keys are made of [A-Za-z0-9-] only.
--
-- Environment: TW_DELAY_MS, TW_NONCE, TW_HOLD (optional, see done()).

local next_index = 0 -- in wrk's main Lua state, where setup() runs once per thread

function setup(thread)
  thread:set("tw_index", next_index)
  next_index = next_index + 1
end

local head, tail, prefix -- in each thread's Lua state
local n = 0

function init(args)
  local nonce = assert(os.getenv("TW_NONCE"), "TW_NONCE is not set")
  local delay = assert(os.getenv("TW_DELAY_MS"), "TW_DELAY_MS is not set")
  prefix = '{"key":"' .. nonce .. "-" .. string.format("%d", tw_index) .. "-"
  tail = '","delayMs":' .. delay .. "}"
  head = "POST " .. wrk.path .. " HTTP/1.1\r\nHost: " .. wrk.headers["Host"]
      .. "\r\nContent-Type: application/json\r\nContent-Length: "
end

function request()
  n = n + 1
  local body = prefix .. string.format("%d", n) .. tail
  return head .. #body .. "\r\n\r\n" .. body
end

-- With TW_HOLD=1 (the benchmark sets it), done() waits for standard input to close before wrk exits, so that the
-- benchmark can read wrk's CPU time (/proc/<pid>/stat) after its run and before the process is gone.
function done(summary, latency, requests)
  if os.getenv("TW_HOLD") == "1" then
    io.read("*a")
  end
end
