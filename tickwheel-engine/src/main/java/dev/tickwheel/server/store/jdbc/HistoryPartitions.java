package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.instance.NewInstance;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The day partitions of the PostgreSQL history ({@link PartitionedHistory}): which exist, and the creation of the
 * missing ones before anything is inserted into them. {@code tw_instance} and {@code tw_attempt} are partitioned by
 * instance id and get their partitions together, with the same bounds ({@link PartitionDay#fromId()} to
 * {@link PartitionDay#toId()}); {@code tw_instance_slot} by slot time ({@link PartitionDay#fromMs()} to
 * {@link PartitionDay#toMs()}). A store without partitions (H2) gets {@link #none()}, which does nothing.
 *
 * <pre>
 * Where partitions come from:
 *   ahead      at open and at every retention upkeep: today and the next DAYS_AHEAD days, so an ordinary insert never
 *              waits for a creation (createAhead)
 *   on demand  before an insert transaction, for any id or slot time no partition covers: a member whose clock is
 *              ahead, a fixed-delay follow-up due in months, a recovery that replays old slots, tests (prepareFor)
 * There is no DEFAULT partition: with one, every later creation would have to scan it under an exclusive lock and
 * fail if it held rows of the new day, and its rows could never go by a drop. Without one an id outside every
 * partition fails its insert, which prepareFor rules out, and every row is in exactly one day.
 * </pre>
 *
 * A creation is {@code CREATE TABLE ... (LIKE parent)} then {@code ALTER TABLE parent ATTACH PARTITION}: attaching
 * takes a SHARE UPDATE EXCLUSIVE lock on the parent, which does not conflict with reads and writes, where {@code CREATE
 * TABLE ... PARTITION OF} would take an ACCESS EXCLUSIVE one. (Attaching an attempt partition takes a SHARE ROW
 * EXCLUSIVE lock on {@code tw_instance} for a moment, to clone the attempts' foreign key; hence creations ahead of
 * time, under a {@value #LOCK_TIMEOUT} lock timeout.)
 *
 * <p>Thread-safe: the known ranges are immutable maps swapped whole ({@code ConcurrentHashMap} per table); creations
 * are serialised, across members too, by a transaction-level advisory lock per schema and re-checked under it.
 *
 * <p>Caveats: the known ranges are a cache. A partition another member dropped (a day past the retention) still looks
 * present here until the next {@link #load}; an insert into it (a clock days behind) fails once, and
 * {@link #insertFailed} reloads so that the next try creates it again.
 */
final class HistoryPartitions {

    static final String INSTANCES = "tw_instance";
    static final String ATTEMPTS = "tw_attempt";
    static final String SLOTS = "tw_instance_slot";
    /** Days after today whose partitions exist before they are needed. */
    static final int DAYS_AHEAD = 2;
    static final String LOCK_TIMEOUT = "5s";
    /** First key of the advisory lock that serialises creations (the second is the schema's). "twp1". */
    static final int CREATE_LOCK = 0x7477_7031;
    /** PostgreSQL's SQLState for "no partition of relation ... found for row" (a check violation). */
    private static final String NO_PARTITION = "23514";

    private static final Logger log = LoggerFactory.getLogger(HistoryPartitions.class);
    private static final Pattern BOUNDS = Pattern.compile("FROM \\((.+)\\) TO \\((.+)\\)");

    private static final HistoryPartitions NONE = new HistoryPartitions(null);

    private final TransactionRunner runner;
    /** Table name to its partitions by lower bound; each value replaced whole, never changed in place. */
    private final Map<String, NavigableMap<Long, Partition>> known = new ConcurrentHashMap<>();

    /**
     * One partition of a partitioned table.
     *
     * @param name the partition's table
     * @param from its lower bound, inclusive; {@link Long#MIN_VALUE} for MINVALUE
     * @param to   its upper bound, exclusive
     */
    record Partition(String name, long from, long to) {

        boolean covers(long value) {
            return value >= from && value < to;
        }
    }

    private HistoryPartitions(TransactionRunner runner) {
        this.runner = runner;
    }

    /** The partitions of a PostgreSQL store; call {@link #load()} before use. */
    static HistoryPartitions of(TransactionRunner runner) {
        return new HistoryPartitions(runner);
    }

    /** For a store that keeps its history in one table (H2): every method does nothing. */
    static HistoryPartitions none() {
        return NONE;
    }

    boolean enabled() {
        return runner != null;
    }

    /** Reads which partitions exist. */
    void load() {
        if (!enabled()) {
            return;
        }
        runner.autoCommit("read the history partitions", connection -> {
            for (String table : List.of(INSTANCES, ATTEMPTS, SLOTS)) {
                known.put(table, byLowerBound(read(connection, table)));
            }
            return null;
        });
    }

    /**
     * Makes sure every instance and, if {@code scheduled}, every schedule slot of {@code instances} has its partition,
     * creating what is missing. Call before the insert's transaction (a creation takes locks an open transaction
     * could deadlock with). Costs one lookup per instance when all exist.
     */
    void prepareFor(Collection<NewInstance> instances, boolean scheduled) {
        if (!enabled()) {
            return;
        }
        Set<PartitionDay> idDays = new TreeSet<>();
        Set<PartitionDay> slotDays = new TreeSet<>();
        for (NewInstance instance : instances) {
            if (!covered(INSTANCES, instance.id())) {
                idDays.add(PartitionDay.ofId(instance.id()));
            }
            long slotMs = instance.slot().toEpochMilli();
            if (scheduled && !covered(SLOTS, slotMs)) {
                slotDays.add(PartitionDay.ofMillis(slotMs));
            }
        }
        idDays.forEach(day -> create(day, true));
        slotDays.forEach(day -> create(day, false));
    }

    /** Creates the partitions of the day of {@code now} and of the {@value #DAYS_AHEAD} days after it, if missing. */
    void createAhead(Instant now) {
        if (!enabled()) {
            return;
        }
        PartitionDay today = PartitionDay.of(now);
        for (int i = 0; i <= DAYS_AHEAD; i++) {
            PartitionDay day = today.plusDays(i);
            if (!covered(INSTANCES, day.fromId()) || !covered(ATTEMPTS, day.fromId())) {
                create(day, true);
            }
            if (!covered(SLOTS, day.fromMs())) {
                create(day, false);
            }
        }
    }

    /**
     * Called with an insert's failure: if it was an id or slot outside every partition (one dropped by another
     * member since this one looked), forgets what it knew so that the next try creates it.
     */
    void insertFailed(RuntimeException failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && NO_PARTITION.equals(sql.getSQLState())) {
                load();
                return;
            }
        }
    }

    private boolean covered(String table, long value) {
        NavigableMap<Long, Partition> partitions = known.get(table);
        Map.Entry<Long, Partition> floor = partitions == null ? null : partitions.floorEntry(value);
        return floor != null && floor.getValue().covers(value);
    }

    /** Creates the day's partitions of the instances and attempts ({@code byId}), or of the slots. */
    private void create(PartitionDay day, boolean byId) {
        runner.inTransaction("create the history partitions of " + day, connection -> {
            known.putAll(createDay(connection, day, byId));
            return null;
        });
    }

    /**
     * Creates, in the caller's transaction, the partitions of {@code day} that are missing: of the instances and the
     * attempts ({@code byId}), or of the slots. Takes the creation lock first and looks at the catalog under it.
     *
     * @return the partitions of each table it looked at, the new ones included
     */
    static Map<String, NavigableMap<Long, Partition>> createDay(Connection connection, PartitionDay day, boolean byId)
            throws SQLException {
        try (Statement s = connection.createStatement()) {
            // The timeout first: it bounds the wait for the advisory lock too (a creator paused while holding it).
            s.execute("SET LOCAL lock_timeout = '" + LOCK_TIMEOUT + "'");
            s.execute("SELECT pg_advisory_xact_lock(" + CREATE_LOCK + ", hashtext(current_schema()))");
        }
        Map<String, NavigableMap<Long, Partition>> tables = new java.util.HashMap<>();
        // Under the lock: another thread or member may have created them meanwhile.
        for (String table : byId ? List.of(INSTANCES, ATTEMPTS) : List.of(SLOTS)) {
            long from = byId ? day.fromId() : day.fromMs();
            long to = byId ? day.toId() : day.toMs();
            NavigableMap<Long, Partition> existing = byLowerBound(read(connection, table));
            if (!covering(existing, from, to)) {
                String name = day.partitionOf(table);
                try (Statement s = connection.createStatement()) {
                    s.execute("CREATE TABLE " + name + " (LIKE " + table + " INCLUDING DEFAULTS)");
                    s.execute("ALTER TABLE " + table + " ATTACH PARTITION " + name + " FOR VALUES FROM (" + from
                            + ") TO (" + to + ")");
                }
                existing.put(from, new Partition(name, from, to));
                log.info("History partition {} created ({} to {})", name, from, to);
            }
            tables.put(table, existing);
        }
        return tables;
    }

    /**
     * True if a partition covers {@code [from, to)} whole; false if none touches it.
     *
     * @throws IllegalStateException if partitions cover part of it: every partition made here is a whole day, so
     *                               that means partitions made by hand, which this class will not guess around
     */
    private static boolean covering(NavigableMap<Long, Partition> partitions, long from, long to) {
        Map.Entry<Long, Partition> floor = partitions.floorEntry(from);
        if (floor != null && floor.getValue().covers(from) && floor.getValue().to() >= to) {
            return true;
        }
        boolean overlaps = floor != null && floor.getValue().to() > from;
        Long next = partitions.higherKey(from);
        if (overlaps || (next != null && next < to)) {
            throw new IllegalStateException("partitions cover part of [" + from + ", " + to + ") only: " + partitions
                    .values());
        }
        return false;
    }

    /** The partitions of {@code table} attached now (not those whose detach is pending), by lower bound. */
    static List<Partition> read(Connection connection, String table) throws SQLException {
        List<Partition> partitions = new ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement("SELECT c.relname, pg_get_expr(c.relpartbound, c.oid)"
                + " FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
                + " WHERE i.inhparent = to_regclass(?) AND NOT i.inhdetachpending")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    partitions.add(parse(rs.getString(1), rs.getString(2)));
                }
            }
        }
        partitions.sort(java.util.Comparator.comparingLong(Partition::from));
        return partitions;
    }

    /** {@code FOR VALUES FROM ('123') TO ('456')}, or {@code MINVALUE} / {@code MAXVALUE} for a bound. */
    static Partition parse(String name, String bound) {
        Matcher m = BOUNDS.matcher(bound);
        if (!m.find()) {
            throw new IllegalStateException("partition " + name + " is not a range partition: " + bound);
        }
        return new Partition(name, boundValue(m.group(1)), boundValue(m.group(2)));
    }

    private static long boundValue(String text) {
        String value = text.replace("'", "").trim();
        return switch (value) {
            case "MINVALUE" -> Long.MIN_VALUE;
            case "MAXVALUE" -> Long.MAX_VALUE;
            default -> Long.parseLong(value);
        };
    }

    private static NavigableMap<Long, Partition> byLowerBound(List<Partition> partitions) {
        NavigableMap<Long, Partition> map = new TreeMap<>();
        partitions.forEach(p -> map.put(p.from(), p));
        return map;
    }
}
