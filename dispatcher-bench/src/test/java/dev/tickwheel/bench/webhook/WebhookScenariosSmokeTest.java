package dev.tickwheel.bench.webhook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Runs every webhook scenario at a tiny size ({@link ScenarioSettings#tiny()}: 200 instances, 50 ms latency, ...)
 * on the test PostgreSQL, the server in this JVM, so that CI catches a broken harness. A few seconds a scenario.
 */
class WebhookScenariosSmokeTest {

    @ParameterizedTest
    @EnumSource(WebhookScenario.class)
    void scenario_tinyOnPostgres_keepsEveryInvariant(WebhookScenario scenario) {
        ScenarioResult result = ScenarioRun.run(scenario, ScenarioSettings.tiny(), TestPostgres::schema,
                ServerRun::run);

        System.out.println(result.toLine());
        assertTrue(result.passed(), result.toLine());
        assertEquals(0, result.number("lost"), result.toLine());
        assertEquals(0, result.number("duplicateKeys"), result.toLine());
        assertTrue(result.number("maxExcess") <= ScenarioJudge.CLAIM_BATCH, result.toLine());
        assertEquals(scenario.instances(ScenarioSettings.tiny()), result.number("deliveries"), result.toLine());
    }
}
