package dev.tickwheel.spring;

import dev.tickwheel.server.store.SecretKeyMismatchException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * A start refused because the store's secrets are under a key the application did not give, reported by Spring Boot
 * as one description naming {@code tickwheel.secret-key} (the engine's own message names the builder's setting).
 *
 * <p>Stateless; thread-safe.
 */
class SecretKeyFailureAnalyzer extends AbstractFailureAnalyzer<SecretKeyMismatchException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, SecretKeyMismatchException cause) {
        return new FailureAnalysis(cause.describe("tickwheel.secret-key", "tickwheel.previous-secret-keys"),
                "Set tickwheel.secret-key to the key the store's secrets are encrypted with, or keep that key in"
                        + " tickwheel.previous-secret-keys beside the new one (README, \"Secrets at rest\").", cause);
    }
}
