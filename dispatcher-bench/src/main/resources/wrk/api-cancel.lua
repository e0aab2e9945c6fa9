-- wrk script of ApiLoadBenchmark's figures "3a. cancel by id (wrk)" and "3b. cancel by key (wrk)" (see
-- dev.tickwheel.bench.api.WrkClient): POST TW_PATH_PREFIX <line> TW_PATH_SUFFIX, no body, once for each line of the
-- file TW_SUPPLY (instance ids, or run keys made of [A-Za-z0-9-], of WAITING runs the benchmark made for this
-- invocation alone):
--   3a  /api/instances/<id>/cancel            prefix "/api/instances/",         suffix "/cancel"
--   3b  /api/jobs/<jobId>/runs/<key>/cancel   prefix "/api/jobs/<jobId>/runs/", suffix "/cancel"
-- Each of the TW_THREADS wrk threads takes its own interleaved share: thread i (from setup(), 0-based) lines i, i+T,
-- i+2T, ... (0-based), so no line is sent twice. A thread whose share is used up stops (wrk.thread:stop(): its
-- connections send nothing more; the one request each of them is writing at that moment is a cancel of id 0, which
-- the server answers 404, and whose answer wrk never reads). done() prints, per thread, its share, the lines it took
-- and whether it ran out, for the benchmark to compare with the 2xx answers. wrk's check of the script (before its
-- threads start) calls request() once in thread 0: that line is taken and never sent.
--
-- Environment: TW_SUPPLY, TW_THREADS, TW_PATH_PREFIX, TW_PATH_SUFFIX, TW_HOLD (optional, see done()).

local next_index = 0 -- in wrk's main Lua state, where setup() and done() run
local threads = {}

function setup(thread)
  thread:set("tw_index", next_index)
  next_index = next_index + 1
  threads[#threads + 1] = thread
end

-- in each thread's Lua state; tw_share, tw_taken and tw_exhausted are globals so that done() can read them
local lines = {}
local head, tail, spare

function init(args)
  local count = assert(tonumber(os.getenv("TW_THREADS") or ""), "TW_THREADS is not set")
  local supply = assert(os.getenv("TW_SUPPLY"), "TW_SUPPLY is not set")
  local i = 0
  for line in io.lines(supply) do
    if i % count == tw_index and line ~= "" then
      lines[#lines + 1] = line
    end
    i = i + 1
  end
  tw_share = #lines
  tw_taken = 0
  tw_exhausted = 0
  local host = wrk.headers["Host"]
  head = "POST " .. assert(os.getenv("TW_PATH_PREFIX"), "TW_PATH_PREFIX is not set")
  tail = assert(os.getenv("TW_PATH_SUFFIX"), "TW_PATH_SUFFIX is not set") .. " HTTP/1.1\r\nHost: " .. host
      .. "\r\nContent-Length: 0\r\n\r\n"
  spare = "POST /api/instances/0/cancel HTTP/1.1\r\nHost: " .. host .. "\r\nContent-Length: 0\r\n\r\n"
end

function request()
  if tw_taken < tw_share then
    tw_taken = tw_taken + 1
    return head .. lines[tw_taken] .. tail
  end
  tw_exhausted = 1
  wrk.thread:stop()
  return spare
end

-- With TW_HOLD=1 (the benchmark sets it), done() then waits for standard input to close before wrk exits, so that the
-- benchmark can read wrk's CPU time (/proc/<pid>/stat) after its run and before the process is gone.
function done(summary, latency, requests)
  for _, thread in ipairs(threads) do
    io.write(string.format("tickwheel-supply thread=%d share=%d taken=%d exhausted=%d\n", thread:get("tw_index"),
        thread:get("tw_share"), thread:get("tw_taken"), thread:get("tw_exhausted")))
  end
  io.flush()
  if os.getenv("TW_HOLD") == "1" then
    io.read("*a")
  end
end
