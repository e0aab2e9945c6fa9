package dev.tickwheel.bench.api;

/**
 * Every figure the API benchmark reports: the six scheduling calls of the issue "Scheduling calls at platform scale"
 * with their targets, and the JDBC ceilings they are compared with. A figure is a rate of items (calls, runs or rows)
 * per second; the single-call figures also have a latency. The four single calls are figures twice, once per client:
 * the JVM client in the benchmark's process ({@link LoadLoop}) and wrk in its own ({@link WrkClient}); the order here
 * is the order of the report's rows (each wrk row after its JVM row).
 *
 * <p>Immutable.
 */
enum Figure {

    RUN(true, 10_000, 20_000),
    RUN_WRK(true, 10_000, 20_000),
    RUN_KEYED(true, 8_000, 0),
    RUN_KEYED_WRK(true, 8_000, 0),
    CANCEL_BY_ID(true, 10_000, 0),
    CANCEL_BY_ID_WRK(true, 10_000, 0),
    CANCEL_BY_KEY(true, 10_000, 0),
    CANCEL_BY_KEY_WRK(true, 10_000, 0),
    RUN_BATCH(true, 50_000, 0),
    CANCEL_BATCH(true, 50_000, 0),

    INSERT_ONE(false, 0, 0),
    INSERT_ONE_KEYED(false, 0, 0),
    INSERT_SMALL_GROUP(false, 0, 0),
    INSERT_BATCH(false, 0, 0),
    INSERT_BATCH_KEYED(false, 0, 0),
    CANCEL_ONE(false, 0, 0),
    CANCEL_SMALL_GROUP(false, 0, 0),
    CANCEL_BATCH_ROWS(false, 0, 0);

    private final boolean api;
    private final long targetPerSecond;
    private final long targetP99Us;

    Figure(boolean api, long targetPerSecond, long targetP99Us) {
        this.api = api;
        this.targetPerSecond = targetPerSecond;
        this.targetP99Us = targetP99Us;
    }

    /** An HTTP figure (else a JDBC ceiling). */
    boolean api() {
        return api;
    }

    /** One of the four single calls (1 to 3b), of either client. */
    boolean single() {
        return switch (this) {
            case RUN, RUN_WRK, RUN_KEYED, RUN_KEYED_WRK, CANCEL_BY_ID, CANCEL_BY_ID_WRK, CANCEL_BY_KEY,
                    CANCEL_BY_KEY_WRK -> true;
            default -> false;
        };
    }

    /** A single call sent by wrk (else by the JVM client, or a ceiling). */
    boolean wrk() {
        return this == RUN_WRK || this == RUN_KEYED_WRK || this == CANCEL_BY_ID_WRK || this == CANCEL_BY_KEY_WRK;
    }

    /** The target in items per second; 0 for none (the ceilings). */
    long targetPerSecond() {
        return targetPerSecond;
    }

    /** The target for the 99th percentile of the call's latency in microseconds; 0 for none. */
    long targetP99Us() {
        return targetP99Us;
    }

    /** The ceiling an API figure is compared with; null for a ceiling. */
    Figure ceiling() {
        return switch (this) {
            case RUN, RUN_WRK -> INSERT_ONE;
            case RUN_KEYED, RUN_KEYED_WRK -> INSERT_ONE_KEYED;
            case CANCEL_BY_ID, CANCEL_BY_ID_WRK, CANCEL_BY_KEY, CANCEL_BY_KEY_WRK -> CANCEL_ONE;
            case RUN_BATCH -> INSERT_BATCH_KEYED;
            case CANCEL_BATCH -> CANCEL_BATCH_ROWS;
            default -> null;
        };
    }

    /** What one item of the rate is. */
    String unit() {
        return switch (this) {
            case RUN, RUN_WRK, RUN_KEYED, RUN_KEYED_WRK, CANCEL_BY_ID, CANCEL_BY_ID_WRK, CANCEL_BY_KEY,
                    CANCEL_BY_KEY_WRK -> "calls/s";
            case RUN_BATCH -> "runs/s";
            case CANCEL_BATCH -> "cancels/s";
            default -> "rows/s";
        };
    }

    /** The figure's name in the report's tables. */
    String title(ApiLoadSettings s) {
        return switch (this) {
            case RUN -> "1. run (JVM client): `POST /api/jobs/{id}/run`";
            case RUN_WRK -> "1. run (wrk): `POST /api/jobs/{id}/run`";
            case RUN_KEYED -> "2. keyed run (JVM client): `POST /api/jobs/{id}/run` with a `key`";
            case RUN_KEYED_WRK -> "2. keyed run (wrk): `POST /api/jobs/{id}/run` with a `key`";
            case CANCEL_BY_ID -> "3a. cancel by id (JVM client): `POST /api/instances/{id}/cancel`";
            case CANCEL_BY_ID_WRK -> "3a. cancel by id (wrk): `POST /api/instances/{id}/cancel`";
            case CANCEL_BY_KEY -> "3b. cancel by key (JVM client): `POST /api/jobs/{jobId}/runs/{key}/cancel`";
            case CANCEL_BY_KEY_WRK -> "3b. cancel by key (wrk): `POST /api/jobs/{jobId}/runs/{key}/cancel`";
            case RUN_BATCH -> "4a. batch run: `POST /api/jobs/{id}/runs`, " + s.batchSize() + " runs a call";
            case CANCEL_BATCH -> "4b. batch cancel: `POST /api/instances/cancel`, " + s.batchSize() + " ids a call";
            case INSERT_ONE -> "5a. insert, 1 row a transaction";
            case INSERT_ONE_KEYED -> "5a. keyed insert, 1 row a transaction";
            case INSERT_SMALL_GROUP -> "5b. insert, " + s.smallGroup() + " rows a transaction";
            case INSERT_BATCH -> "5b. insert, " + s.batchSize() + " rows a transaction";
            case INSERT_BATCH_KEYED -> "5b. keyed insert, " + s.batchSize() + " rows a transaction";
            case CANCEL_ONE -> "5c. cancel, 1 id a transaction";
            case CANCEL_SMALL_GROUP -> "5c. cancel, " + s.smallGroup() + " ids a transaction";
            case CANCEL_BATCH_ROWS -> "5c. cancel, " + s.batchSize() + " ids a transaction";
        };
    }

    /** What the figure measures, one sentence for the report's legend. */
    String measures(ApiLoadSettings s) {
        String each = s.concurrency() + " ";
        String wrk = "`wrk -t" + WrkClient.threads(s.concurrency()) + " -c" + s.concurrency() + " -d"
                + s.measure().toSeconds() + "s --latency`" + (s.warmUp().isZero() ? "; "
                : ", after the same invocation for " + s.warmUp().toSeconds() + " s, not measured; ");
        String wrkCounted = "successes are wrk's requests minus its non-2xx answers, per second of its run (non-2xx"
                + " answers and socket errors are errors); latency is wrk's distribution of every answer (from"
                + " request written to answer read, with wrk's correction for coordinated omission)";
        return switch (this) {
            case RUN -> each + "JVM client threads each send `{\"delayMs\": " + s.delayMs() + "}` and wait for the "
                    + "answer; 2xx answers per second, and the latency of each call (send to whole answer read)";
            case RUN_WRK -> "figure 1's body, sent by wrk in its own process (" + WrkClient.threads(s.concurrency())
                    + " threads, " + s.concurrency() + " keep-alive connections, each sending its next request when "
                    + "its answer is read): " + wrk + wrkCounted;
            case RUN_KEYED -> "the same with a key no run had before, `{\"key\": \"k-<n>\", \"delayMs\": "
                    + s.delayMs() + "}`";
            case RUN_KEYED_WRK -> "figure 2's body with keys `<invocation>-<wrk thread>-<n>`, unique across threads "
                    + "and invocations, sent and counted by wrk as in 1 (wrk)";
            case CANCEL_BY_ID -> "cancels of the instances figure 1 (JVM client) created in the same round, oldest "
                    + "first; 2xx answers per second";
            case CANCEL_BY_ID_WRK -> "cancels of WAITING instances made for it before its warm-up (batch calls, "
                    + "unkeyed, " + WrkClient.SUPPLY_PER_SECOND + " per second of warm-up and of window), each id "
                    + "once (the warm-up and the window have their own), sent and counted by wrk as in 1 (wrk)";
            case CANCEL_BY_KEY -> "cancels of figure 2's runs by their key, oldest first; 2xx answers per second";
            case CANCEL_BY_KEY_WRK -> "the same by key, of keyed runs (`w-<n>`) made for it, sent and counted by "
                    + "wrk as in 1 (wrk)";
            case RUN_BATCH -> each + "clients each send " + s.batchSize() + " keyed runs a call; runs the 2xx "
                    + "answers say were created (`\"created\": true`) per second";
            case CANCEL_BATCH -> each + "clients each send " + s.batchSize() + " ids of figure 4a's instances a "
                    + "call; `CANCELLED` outcomes in the 2xx answers per second";
            case INSERT_ONE -> each + "JDBC threads, each transaction `SELECT … FOR KEY SHARE` of the job, one "
                    + "`INSERT` of a WAITING instance without a key, `COMMIT`; rows per second";
            case INSERT_ONE_KEYED -> "the same with a unique `run_key` and `ON CONFLICT (job_id, run_key) WHERE "
                    + "run_key IS NOT NULL DO NOTHING`";
            case INSERT_SMALL_GROUP -> "as 5a without a key, " + s.smallGroup()
                    + " inserts in one JDBC batch per transaction (one job lock each)";
            case INSERT_BATCH -> "the same with " + s.batchSize() + " inserts a transaction";
            case INSERT_BATCH_KEYED -> "the same with keys (`ON CONFLICT … DO NOTHING`), the statements behind 4a";
            case CANCEL_ONE -> each + "JDBC threads, each transaction `UPDATE … SET status = 'CANCELLED' … WHERE id "
                    + "= ANY(?) AND status = 'WAITING' RETURNING id` with one id of the rows 5a and 5b inserted, "
                    + "`COMMIT`; rows per second";
            case CANCEL_SMALL_GROUP -> "the same with " + s.smallGroup() + " ids a transaction";
            case CANCEL_BATCH_ROWS -> "the same with " + s.batchSize() + " ids a transaction";
        };
    }
}
