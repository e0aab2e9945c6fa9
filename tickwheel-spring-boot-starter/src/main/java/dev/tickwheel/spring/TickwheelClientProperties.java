package dev.tickwheel.spring;

import dev.tickwheel.client.RetryPolicy;
import dev.tickwheel.client.TickwheelClient;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code tickwheel.client.*} properties: a {@link TickwheelClient} of a Tickwheel server elsewhere, made when
 * {@code tickwheel.client.base-url} is set (and the application has {@code tickwheel-client}). Independent of the
 * embedded engine: an application that only calls a server sets {@code tickwheel.enabled=false}.
 */
@ConfigurationProperties(prefix = "tickwheel.client")
public class TickwheelClientProperties {

    /** The server's base URL, e.g. http://tickwheel:7700; unset, no client is made. */
    private String baseUrl;
    /** The bearer token sent with each call (the server needs it on POST, PUT and DELETE). */
    private String token;
    /** How long opening a connection may take. */
    private Duration connectTimeout = Duration.ofSeconds(2);
    /** How long one attempt may take, the whole answer read. */
    private Duration requestTimeout = Duration.ofSeconds(10);
    /** Attempts of a call that is safe to repeat (reads, keyed runs, cancels), the first included. */
    private int maxAttempts = 3;
    /** Connections kept to the server at most (calls in flight at once). */
    private int maxConnections = 128;

    /** The client these properties describe. */
    TickwheelClient build() {
        TickwheelClient.Builder builder = TickwheelClient.builder(baseUrl).connectTimeout(connectTimeout)
                .requestTimeout(requestTimeout).maxConnections(maxConnections)
                .retryPolicy(new RetryPolicy(maxAttempts, RetryPolicy.DEFAULT_INITIAL_BACKOFF,
                        RetryPolicy.DEFAULT_MAX_BACKOFF));
        if (token != null && !token.isBlank()) {
            builder.token(token);
        }
        return builder.build();
    }

    public String getBaseUrl() {
        return baseUrl;
    }

    public void setBaseUrl(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    public String getToken() {
        return token;
    }

    public void setToken(String token) {
        this.token = token;
    }

    public Duration getConnectTimeout() {
        return connectTimeout;
    }

    public void setConnectTimeout(Duration connectTimeout) {
        this.connectTimeout = connectTimeout;
    }

    public Duration getRequestTimeout() {
        return requestTimeout;
    }

    public void setRequestTimeout(Duration requestTimeout) {
        this.requestTimeout = requestTimeout;
    }

    public int getMaxConnections() {
        return maxConnections;
    }

    public void setMaxConnections(int maxConnections) {
        this.maxConnections = maxConnections;
    }

    public int getMaxAttempts() {
        return maxAttempts;
    }

    public void setMaxAttempts(int maxAttempts) {
        this.maxAttempts = maxAttempts;
    }
}
