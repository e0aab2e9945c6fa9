package dev.tickwheel.bench.webhook;

import static org.junit.jupiter.api.Assertions.fail;

import dev.tickwheel.bench.e2e.BenchDatabase;
import dev.tickwheel.fixtures.postgres.LocalPostgres;

/**
 * A fresh schema on the test PostgreSQL server ({@code TICKWHEEL_TEST_PG_URL}, default
 * {@link BenchDatabase#DEFAULT_PG_URL}). An unreachable server fails the test, never skips it: under {@code CI=true}
 * because CI must test PostgreSQL, and locally with the command that starts it (as dispatcher-server's
 * {@code PostgresTestDatabase}).
 *
 * <p>Stateless.
 */
public final class TestPostgres {

    private TestPostgres() {
    }

    private static String url() {
        String env = System.getenv("TICKWHEEL_TEST_PG_URL");
        return env == null || env.isBlank() ? BenchDatabase.DEFAULT_PG_URL : env;
    }

    /**
     * The test server's URL, checked to be reachable (a schema is created and dropped), for harnesses that make their
     * own schemas.
     */
    public static String serverUrl() {
        schema().close();
        return url();
    }

    /** A fresh schema on the test server; fails (never skips) if it is unreachable. */
    public static BenchDatabase schema() {
        String url = url();
        try {
            return BenchDatabase.postgres(url);
        } catch (IllegalStateException unreachable) {
            boolean ci = "true".equalsIgnoreCase(System.getenv("CI"));
            return fail("PostgreSQL is unreachable at " + url + " (" + unreachable.getMessage() + "). " + (ci
                    ? "CI=true, so the benchmark smoke tests fail rather than skip."
                    : "Start it with `" + LocalPostgres.START_COMMAND + "`, or point TICKWHEEL_TEST_PG_URL at a"
                    + " server."),
                    unreachable);
        }
    }
}
