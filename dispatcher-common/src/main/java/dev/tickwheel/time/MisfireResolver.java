package dev.tickwheel.time;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Applies a {@link MisfirePolicy} to missed trigger times: for a loader, the past times that get an instance; for
 * the start-up recovery, which of the already-created instances of a downtime fire (the others are cancelled):
 *
 * <table>
 *   <caption>Policies, for missed times m1 &lt; m2 &lt; ... &lt; mn at now</caption>
 *   <tr><th>policy</th><th>instances kept (all due now)</th><th>dropped</th></tr>
 *   <tr><td>FIRE_ONCE_NOW</td><td>one, expected at mn (the latest)</td><td>n - 1</td></tr>
 *   <tr><td>SKIP</td><td>none</td><td>n</td></tr>
 *   <tr><td>FIRE_ALL</td><td>the latest min(n, limit), in order</td><td>n - min(n, limit)</td></tr>
 * </table>
 *
 * <p>The next trigger time is the expression's first trigger strictly after now, so a job never re-creates
 * the triggers it just resolved. For FIXED_DELAY the next trigger follows the completion of the created
 * instance and is empty; when nothing was created (SKIP) the skipped run counts as completed now, so the
 * next trigger is {@code now + delay} and the job does not stall.
 *
 * <p>Thread-safe (immutable). Pure: time comes in as the {@code now} argument.
 *
 * <p>Caveats: FIRE_ALL keeps the latest missed times, on the view that the oldest are the stalest; duplicates
 * in the input are merged. The caller lists missed times with a cap (a cron every second down for a day has
 * 86 400); listing at least {@code fireAllLimit} of the most recent ones keeps FIRE_ALL exact.
 */
public final class MisfireResolver {

    /** Default cap on the instances FIRE_ALL creates for one job in one pass. */
    public static final int DEFAULT_FIRE_ALL_LIMIT = 100;

    private final int fireAllLimit;

    /** @param fireAllLimit the most instances FIRE_ALL creates for one job, at least 1 */
    public MisfireResolver(int fireAllLimit) {
        if (fireAllLimit < 1) {
            throw new IllegalArgumentException("fireAllLimit must be at least 1, got " + fireAllLimit);
        }
        this.fireAllLimit = fireAllLimit;
    }

    /** The cap on the instances FIRE_ALL creates. */
    public int fireAllLimit() {
        return fireAllLimit;
    }

    /**
     * @param expression         the job's schedule
     * @param policy             the job's misfire policy
     * @param missedTriggerTimes trigger times not after {@code now} that got no instance, in any order
     * @param now                the instant the missed times were found at
     * @throws IllegalArgumentException if a missed time is after {@code now}
     */
    public MisfireResolution resolve(TimeExpression expression, MisfirePolicy policy,
                                     Collection<Instant> missedTriggerTimes, Instant now) {
        Objects.requireNonNull(expression, "expression");
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(now, "now");
        TreeSet<Instant> missed = new TreeSet<>(missedTriggerTimes);
        if (!missed.isEmpty() && missed.last().isAfter(now)) {
            throw new IllegalArgumentException("missed trigger time " + missed.last() + " is after now " + now);
        }
        List<MissedInstance> instances = new ArrayList<>();
        if (!missed.isEmpty()) {
            switch (policy) {
                case FIRE_ONCE_NOW:
                    instances.add(new MissedInstance(missed.last(), now));
                    break;
                case FIRE_ALL:
                    missed.descendingSet().stream().limit(fireAllLimit)
                            .forEach(time -> instances.add(0, new MissedInstance(time, now)));
                    break;
                case SKIP:
                    break;
                default:
                    throw new IllegalStateException("misfire policy without a rule: " + policy);
            }
        }
        int dropped = missed.size() - instances.size();
        return new MisfireResolution(instances, dropped, nextTrigger(expression, instances.isEmpty(), now));
    }

    private static Optional<Instant> nextTrigger(TimeExpression expression, boolean nothingCreated, Instant now) {
        if (expression instanceof FixedDelaySchedule && !nothingCreated) {
            return Optional.empty();
        }
        return expression.nextAfter(now);
    }
}
