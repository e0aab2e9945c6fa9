package dev.tickwheel.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tickwheel.server.store.SecretKeyMismatchException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;

/** A wrong or missing secret key, as Spring Boot reports the failed start: the starter's property named. */
class SecretKeyFailureAnalyzerTest {

    @Test
    void analyze_mismatchInsideABeanCreationFailure_namesTheStartersProperty() {
        BeanCreationException failure = new BeanCreationException("tickwheelServer",
                "Failed to instantiate", new SecretKeyMismatchException(List.of("3fa9c1d2"), true));
        FailureAnalysis analysis = new SecretKeyFailureAnalyzer().analyze(failure);
        assertThat(analysis.getDescription()).isEqualTo("tickwheel.secret-key does not match the key the store's"
                + " secrets are encrypted with (key id 3fa9c1d2); give that key, or it as"
                + " tickwheel.previous-secret-keys beside the new one");
        assertThat(analysis.getAction()).contains("tickwheel.secret-key");
    }

    @Test
    void registered_asAFailureAnalyzer() throws Exception {
        // Read as Spring Boot finds it: a FailureAnalyzer entry of a META-INF/spring.factories on the class path.
        java.util.Properties factories = new java.util.Properties();
        try (var in = SecretKeyFailureAnalyzer.class.getResourceAsStream("/META-INF/spring.factories")) {
            factories.load(in);
        }
        assertThat(factories.getProperty(FailureAnalyzer.class.getName()))
                .isEqualTo(SecretKeyFailureAnalyzer.class.getName());
    }
}
