package dev.tickwheel.server.api.dto;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Body of {@code POST /api/jobs} and {@code PUT /api/jobs/{id}}. Every field is nullable here; the API checks presence
 * and values and names the field in its answer.
 *
 * <p>Immutable.
 *
 * @param name          1..200 characters; required
 * @param schedule      required
 * @param target        required
 * @param params        any JSON value handed to every instance; optional
 * @param enabled       default true
 * @param misfirePolicy FIRE_ONCE_NOW (default), SKIP or FIRE_ALL
 * @param retry         default one attempt
 * @param delivery      AT_LEAST_ONCE (default): a call cut by a server stop is made again with the same
 *                      Idempotency-Key; AT_MOST_ONCE: it is not, and the instance ends INTERRUPTED
 * @param timeoutMs     whole-call deadline of one attempt, 1..3 600 000; default: the server's
 * @param maxConcurrent instances of this job in flight at once, 1..100 000; default: no limit
 * @param overLimit     WAIT (default) or SKIP: what an instance that fires at its job's or pool's limit does; SKIP
 *                      needs maxConcurrent or pool, WAIT is accepted without them (and changes nothing)
 * @param retentionDays days its finished instances are kept, 1..3650; default: the server's retention-days
 * @param alertUrl      http(s) URL of its failure alerts; default: the server's alert-url
 * @param signingSecret HMAC-SHA256 key of its webhook calls, 16..256 characters; write-only. On a replace, absent or
 *                      null keeps the stored secret and "" removes it
 * @param calendar      the name of a calendar whose excluded days the schedule skips (CRON and FIXED_RATE)
 * @param priority      0..9, higher first when call slots are short; default 5
 * @param pool          the name of a pool whose concurrency and rate the job shares; default none
 * @param completion    IMMEDIATE (default): an attempt ends with its call; CALLBACK: a 2xx answer only accepts the
 *                      work, and the target reports its outcome to the call's Tickwheel-Callback-Url (WEBHOOK only)
 * @param callbackTimeoutMs with CALLBACK: how long after the answer, or the last heartbeat, the report may come,
 *                      1 000..604 800 000; default 3 600 000 (an hour)
 */
public record JobRequest(String name, ScheduleBody schedule, TargetBody target, JsonNode params, Boolean enabled,
                         String misfirePolicy, RetryBody retry, String delivery, Long timeoutMs, Integer maxConcurrent,
                         String overLimit, Integer retentionDays, String alertUrl, String signingSecret,
                         String calendar, Integer priority, String pool, String completion,
                         Long callbackTimeoutMs, String namespace) {
}
