-- wrk script of ApiLoadBenchmark's figure "1. run (wrk)" (dev.tickwheel.bench.api.WrkClient copies it to a temporary
-- directory and runs wrk with it): every request is the same POST of {"delayMs": TW_DELAY_MS} to the URL's path,
-- POST /api/jobs/{id}/run. No request() function, so wrk formats the request once per thread and sends the same
-- bytes on every connection: the cheapest a client can be.
--
-- Environment: TW_DELAY_MS, the run's delay in milliseconds; TW_HOLD (optional, see done()).
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"delayMs":' .. assert(os.getenv("TW_DELAY_MS"), "TW_DELAY_MS is not set") .. '}'

-- With TW_HOLD=1 (the benchmark sets it), done() waits for standard input to close before wrk exits, so that the
-- benchmark can read wrk's CPU time (/proc/<pid>/stat) after its run and before the process is gone.
function done(summary, latency, requests)
  if os.getenv("TW_HOLD") == "1" then
    io.read("*a")
  end
end
