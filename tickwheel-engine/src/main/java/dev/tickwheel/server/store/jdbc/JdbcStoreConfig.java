package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.store.SecretKeys;
import io.micrometer.core.instrument.MeterRegistry;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * How {@link JdbcStores#open(JdbcStoreConfig)} connects: the database URL, credentials, pool sizing, the clock
 * that stamps created/updated times, and who the opened store is as a cluster member (its session, and in tests the
 * clock its leases are judged by).
 *
 * <p>Immutable.
 *
 * @param jdbcUrl           an H2 ({@code jdbc:h2:}) or PostgreSQL ({@code jdbc:postgresql:}) URL
 * @param username          database user, or null to take it from the URL
 * @param password          database password, or null to take it from the URL
 * @param maxPoolSize       most pooled connections, 1..200
 * @param connectionTimeout longest wait for a pooled connection before a call fails
 * @param callerNetworkTimeout
 *                          longest wait for the database's answer to one read of a statement run for an API caller
 *                          ({@link JdbcStores#callerJobs()}, {@link JdbcStores#callerInstances()}), or zero for none
 * @param poolName          name of the pool and prefix of its threads
 * @param clock             stamps createdAt/updatedAt
 * @param session           the member's session, its fence token (see
 *                          {@link dev.tickwheel.server.store.ClusterStore#session()}): positive, or 0 (the default)
 *                          for a fresh random one drawn at each {@link JdbcStores#open}, so that two stores opened
 *                          from one config are still two members
 * @param leaseClock        for tests only: the clock every lease and fence statement judges time by instead of the
 *                          database's; null (the default) for the database's clock
 * @param meterRegistry     where the pool publishes its {@code hikaricp_*} meters (connections active, idle,
 *                          pending, acquire time), or null (the default) for none
 * @param dataSource        the application's own data source to use instead of a pool of the store's, or null (the
 *                          default) for a pool opened from {@code jdbcUrl}; the store never closes it, and the URL,
 *                          credentials and pool settings are then unused (the dialect is read from the connection)
 * @param schemaHistoryTable
 *                          the table where Flyway records the store's migrations; a table other than
 *                          {@link #DEFAULT_SCHEMA_HISTORY_TABLE} lets the store share a schema with an application
 *                          that runs Flyway itself (the store's history starts with a baseline at version 0 there)
 * @param callerTransactions
 *                          the callers' transactions that the API callers' stores join, or
 *                          {@link CallerTransactions#NONE} (the default)
 * @param secretKeys        the keys that encrypt the store's secrets at rest ({@link SecretKeys#NONE}, the default:
 *                          kept as given); shown by key id only
 */
public record JdbcStoreConfig(String jdbcUrl, String username, String password, int maxPoolSize,
        Duration connectionTimeout, Duration callerNetworkTimeout, String poolName, Clock clock, long session,
        Clock leaseClock, MeterRegistry meterRegistry, DataSource dataSource, String schemaHistoryTable,
        CallerTransactions callerTransactions, SecretKeys secretKeys) {

    /** The embedded default: an H2 database file under {@code ./data}. */
    public static final String DEFAULT_JDBC_URL = "jdbc:h2:file:./data/tickwheel;AUTO_SERVER=FALSE";
    /** Enough for a loader, recovery and a busy dispatch executor on a small machine. */
    public static final int DEFAULT_MAX_POOL_SIZE = 10;
    public static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(10);
    /** None: a caller's statement waits as long as the database takes, unless the server sets its store timeout. */
    public static final Duration DEFAULT_CALLER_NETWORK_TIMEOUT = Duration.ZERO;
    public static final String DEFAULT_POOL_NAME = "tickwheel-store";
    /** Flyway's own default: where a store created by the standalone server keeps its migration history. */
    public static final String DEFAULT_SCHEMA_HISTORY_TABLE = "flyway_schema_history";

    public JdbcStoreConfig {
        SqlDialect.forJdbcUrl(jdbcUrl); // throws IllegalArgumentException naming the URL if unsupported
        if (maxPoolSize < 1 || maxPoolSize > 200) {
            throw new IllegalArgumentException("maxPoolSize must be between 1 and 200: " + maxPoolSize);
        }
        Objects.requireNonNull(connectionTimeout, "connectionTimeout");
        // HikariCP refuses connection timeouts below 250 ms.
        if (connectionTimeout.toMillis() < 250) {
            throw new IllegalArgumentException("connectionTimeout must be at least 250 ms: " + connectionTimeout);
        }
        Objects.requireNonNull(callerNetworkTimeout, "callerNetworkTimeout");
        if (callerNetworkTimeout.isNegative() || callerNetworkTimeout.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("callerNetworkTimeout must be 0.." + Integer.MAX_VALUE + " ms: "
                    + callerNetworkTimeout);
        }
        if (poolName == null || poolName.isBlank()) {
            throw new IllegalArgumentException("poolName must not be blank: " + poolName);
        }
        Objects.requireNonNull(clock, "clock");
        if (session < 0) {
            throw new IllegalArgumentException("session must be positive, or 0 for a random one: " + session);
        }
        if (schemaHistoryTable == null || !schemaHistoryTable.matches("[A-Za-z_][A-Za-z0-9_]{0,62}")) {
            throw new IllegalArgumentException("schemaHistoryTable must be a plain SQL name (letters, digits, _;"
                    + " at most 63): " + schemaHistoryTable);
        }
        Objects.requireNonNull(callerTransactions, "callerTransactions");
        Objects.requireNonNull(secretKeys, "secretKeys");
    }

    /** Whether the store runs on the application's data source rather than a pool of its own. */
    boolean external() {
        return dataSource != null;
    }

    /** The session an opened store uses: {@link #session()} if set, else a fresh random positive one. */
    long sessionForOpen() {
        if (session != 0) {
            return session;
        }
        SecureRandom random = new SecureRandom();
        long drawn;
        do {
            drawn = random.nextLong() & Long.MAX_VALUE; // 0 marks a lease nobody holds: never a session
        } while (drawn == 0);
        return drawn;
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** The URL with any password parameter masked, for logs. */
    public String redactedJdbcUrl() {
        return redacted(jdbcUrl);
    }

    /** {@code url} with any password parameter masked, for logs. */
    static String redacted(String url) {
        return url.replaceAll("(?i)(password=)[^&;]*", "$1***");
    }

    /**
     * Builds a {@link JdbcStoreConfig}; every setter checks its argument when {@link #build()} runs the record's
     * checks.
     *
     * <p>Not thread-safe: confined to the thread configuring the store.
     */
    public static final class Builder {
        private String jdbcUrl = DEFAULT_JDBC_URL;
        private String username;
        private String password;
        private int maxPoolSize = DEFAULT_MAX_POOL_SIZE;
        private Duration connectionTimeout = DEFAULT_CONNECTION_TIMEOUT;
        private Duration callerNetworkTimeout = DEFAULT_CALLER_NETWORK_TIMEOUT;
        private String poolName = DEFAULT_POOL_NAME;
        private Clock clock = Clock.systemUTC();
        private long session;
        private Clock leaseClock;
        private MeterRegistry meterRegistry;
        private DataSource dataSource;
        private String schemaHistoryTable = DEFAULT_SCHEMA_HISTORY_TABLE;
        private CallerTransactions callerTransactions = CallerTransactions.NONE;
        private SecretKeys secretKeys = SecretKeys.NONE;

        private Builder() {
        }

        public Builder jdbcUrl(String value) {
            SqlDialect.forJdbcUrl(value);
            this.jdbcUrl = value;
            return this;
        }

        public Builder username(String value) {
            this.username = value;
            return this;
        }

        public Builder password(String value) {
            this.password = value;
            return this;
        }

        public Builder maxPoolSize(int value) {
            if (value < 1 || value > 200) {
                throw new IllegalArgumentException("maxPoolSize must be between 1 and 200: " + value);
            }
            this.maxPoolSize = value;
            return this;
        }

        public Builder connectionTimeout(Duration value) {
            this.connectionTimeout = Objects.requireNonNull(value, "connectionTimeout");
            return this;
        }

        /** Longest wait for the database's answer to a read of an API caller's statement; zero for none. */
        public Builder callerNetworkTimeout(Duration value) {
            this.callerNetworkTimeout = Objects.requireNonNull(value, "callerNetworkTimeout");
            return this;
        }

        public Builder poolName(String value) {
            this.poolName = value;
            return this;
        }

        public Builder clock(Clock value) {
            this.clock = Objects.requireNonNull(value, "clock");
            return this;
        }

        /** This member's session; unset, each open draws a random one. */
        public Builder session(long value) {
            if (value <= 0) {
                throw new IllegalArgumentException("session must be positive (0 marks a lease nobody holds): "
                        + value);
            }
            this.session = value;
            return this;
        }

        /** Tests only: judge leases and fences by this clock instead of the database's. */
        public Builder leaseClock(Clock value) {
            this.leaseClock = Objects.requireNonNull(value, "leaseClock");
            return this;
        }

        /** Publishes the pool's meters ({@code hikaricp_connections_*}) to this registry. */
        public Builder meterRegistry(MeterRegistry value) {
            this.meterRegistry = Objects.requireNonNull(value, "meterRegistry");
            return this;
        }

        /**
         * Runs the store on the application's data source (H2 or PostgreSQL) instead of a pool of its own; the store
         * never closes it. The URL, credentials and pool settings are then unused.
         */
        public Builder dataSource(DataSource value) {
            this.dataSource = Objects.requireNonNull(value, "dataSource");
            return this;
        }

        /** The table of the store's migration history; default {@link #DEFAULT_SCHEMA_HISTORY_TABLE}. */
        public Builder schemaHistoryTable(String value) {
            this.schemaHistoryTable = value;
            return this;
        }

        /** The callers' transactions that the API callers' stores join; default {@link CallerTransactions#NONE}. */
        public Builder callerTransactions(CallerTransactions value) {
            this.callerTransactions = Objects.requireNonNull(value, "callerTransactions");
            return this;
        }

        /**
         * The keys that encrypt the store's secrets at rest (jobs' signing secrets, the callback key); default
         * {@link SecretKeys#NONE}: kept as given. Checked against the store, and what is not under the current key
         * re-encrypted, when the store opens.
         */
        public Builder secretKeys(SecretKeys value) {
            this.secretKeys = Objects.requireNonNull(value, "secretKeys");
            return this;
        }

        public JdbcStoreConfig build() {
            return new JdbcStoreConfig(jdbcUrl, username, password, maxPoolSize, connectionTimeout,
                    callerNetworkTimeout, poolName, clock, session, leaseClock, meterRegistry, dataSource,
                    schemaHistoryTable, callerTransactions, secretKeys);
        }
    }
}
