package dev.tickwheel.bench.ceiling;

import dev.tickwheel.bench.e2e.OneShotJobs;
import dev.tickwheel.id.SnowflakeIdGenerator;
import dev.tickwheel.server.TickwheelServer;
import dev.tickwheel.server.instance.NewInstance;
import dev.tickwheel.server.job.DeliveryPolicy;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.server.store.ClusterStore;
import dev.tickwheel.server.store.JobAdvance;
import dev.tickwheel.server.store.jdbc.InstancePathStatements;
import dev.tickwheel.server.store.jdbc.JdbcStoreConfig;
import dev.tickwheel.server.store.jdbc.JdbcStores;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.stream.IntStream;
import javax.sql.DataSource;

/**
 * The store a ceiling run drives, opened as the engine opens its own ({@link JdbcStores#open} with the pool settings
 * {@code TickwheelServer.open} gives it: the default pool size and the store timeout as the connection timeout),
 * joined as a cluster member that holds every shard (so the fenced claim and success statements apply, as they do
 * for the server that owns them), and the engine's per-instance statements over it ({@link InstancePathStatements}).
 *
 * <p>Setup, not measured: {@link #preparePages} inserts fresh ONE_SHOT jobs and builds the loader pages that advance
 * them, as {@code InstanceLoader} would plan them.
 *
 * <p>Thread-safe after construction: the pool and the statements are; {@link #preparePages} is called from one
 * thread.
 */
public final class CeilingStore implements AutoCloseable {

    /** Leases outlive any run: nothing renews them. */
    private static final Duration LEASE_TTL = Duration.ofHours(1);
    /** Jobs are due this far ahead: no clock condition of the claim depends on it, and no server loads them. */
    private static final long DUE_AHEAD_MS = Duration.ofHours(1).toMillis();

    private final JdbcStores stores;
    private final InstancePathStatements statements;
    private final SnowflakeIdGenerator ids;
    private final Clock clock = Clock.systemUTC();
    private int phase;

    /** Opens the store at {@code jdbcUrl}, joins it and takes every shard. */
    public CeilingStore(String jdbcUrl) {
        this.stores = JdbcStores.open(JdbcStoreConfig.builder().jdbcUrl(jdbcUrl)
                .connectionTimeout(TickwheelServer.DEFAULT_STORE_TIMEOUT)
                .callerNetworkTimeout(TickwheelServer.DEFAULT_STORE_TIMEOUT).build());
        try {
            ClusterStore cluster = stores.cluster();
            int node = cluster.join(OptionalInt.empty(), "store ceiling benchmark", LEASE_TTL);
            List<Integer> shards = IntStream.range(0, cluster.shardCount()).boxed().toList();
            int held = cluster.acquire(shards, LEASE_TTL).size();
            if (held != shards.size()) {
                throw new IllegalStateException("took " + held + " of " + shards.size() + " shards");
            }
            this.ids = new SnowflakeIdGenerator(node, clock);
            this.statements = InstancePathStatements.of(stores);
        } catch (RuntimeException e) {
            stores.close();
            throw e;
        }
    }

    public DataSource dataSource() {
        return stores.dataSource();
    }

    public InstancePathStatements statements() {
        return statements;
    }

    /**
     * Inserts {@code count} ONE_SHOT jobs of their own (setup) and returns the loader pages that advance them, each
     * job with its one instance, {@code pageSize} jobs a page.
     */
    public List<List<JobAdvance>> preparePages(int count, int pageSize) {
        phase++;
        OneShotJobs.insert(stores, List.of(new OneShotJobs.Group("ceiling-" + phase + "-", count,
                Target.handler("ceiling"), DeliveryPolicy.DEFAULT, DUE_AHEAD_MS, 0)), clock);
        List<List<JobAdvance>> pages = new ArrayList<>();
        List<JobAdvance> page = new ArrayList<>(pageSize);
        try (Connection connection = stores.dataSource().getConnection();
                PreparedStatement ps = connection.prepareStatement("SELECT id, version, next_trigger_time_ms"
                        + " FROM tw_job WHERE name LIKE ? AND next_trigger_time_ms IS NOT NULL ORDER BY id")) {
            ps.setString(1, "ceiling-" + phase + "-%");
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long jobId = rs.getLong(1);
                    Instant due = Instant.ofEpochMilli(rs.getLong(3));
                    page.add(new JobAdvance(jobId, rs.getLong(2), due, null,
                            List.of(new NewInstance(ids.nextId(), jobId, due, null)), true, null));
                    if (page.size() == pageSize) {
                        pages.add(page);
                        page = new ArrayList<>(pageSize);
                    }
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("reading the jobs of phase " + phase + " failed: " + e.getMessage(), e);
        }
        if (!page.isEmpty()) {
            pages.add(page);
        }
        int jobs = pages.stream().mapToInt(List::size).sum();
        if (jobs != count) {
            throw new IllegalStateException("phase " + phase + " has " + jobs + " jobs, expected " + count);
        }
        return pages;
    }

    @Override
    public void close() {
        stores.close();
    }
}
