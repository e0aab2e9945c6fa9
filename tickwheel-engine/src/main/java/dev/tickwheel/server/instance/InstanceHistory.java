package dev.tickwheel.server.instance;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * An instance with its attempts, oldest first: the retried ones as the store recorded them, then the current or last
 * attempt, which is the instance row itself (its actual trigger time, error, claim node and epoch belong to it).
 *
 * <p>Which status has which last attempt: DISPATCHING (in flight), SUCCEEDED, FAILED and INTERRUPTED one of that
 * outcome, numbered {@link Instance#attempt()}; WAITING and CANCELLED none (a waiting instance's last claim was either
 * retried, and so is recorded, or released by a stop as the same attempt, which the next claim makes again; a cancel
 * or a skip is no attempt). An instance never claimed has no attempts.
 *
 * <p>Immutable.
 *
 * <p>Caveats: instances retried before the schema recorded attempts (version 5) show only their last attempt.
 *
 * @param instance the instance
 * @param attempts its attempts by ascending number
 */
public record InstanceHistory(Instance instance, List<Attempt> attempts) {

    public InstanceHistory {
        Objects.requireNonNull(instance, "instance");
        attempts = List.copyOf(attempts);
    }

    /** The history of {@code instance} from the attempts recorded for it (retried ones, any order). */
    public static InstanceHistory of(Instance instance, List<Attempt> recorded) {
        List<Attempt> attempts = new ArrayList<>(recorded);
        attempts.sort(Comparator.comparingInt(Attempt::attempt));
        int lastRecorded = attempts.isEmpty() ? 0 : attempts.get(attempts.size() - 1).attempt();
        Attempt.Outcome outcome = switch (instance.status()) {
            case DISPATCHING -> Attempt.Outcome.DISPATCHING;
            case SUCCEEDED -> Attempt.Outcome.SUCCEEDED;
            case FAILED -> Attempt.Outcome.FAILED;
            case INTERRUPTED -> Attempt.Outcome.INTERRUPTED;
            case WAITING, CANCELLED -> null;
        };
        // "> lastRecorded": the row's attempt is one the store has not recorded as retried (always so when both were
        // read in one statement; a guard against a reader that saw the retry's attempt row but an older row).
        if (outcome != null && instance.attempt() > lastRecorded) {
            // In flight, the row's error is still the previous attempt's (a claim does not clear it).
            boolean inFlight = outcome == Attempt.Outcome.DISPATCHING;
            attempts.add(new Attempt(instance.attempt(), outcome, instance.actualTriggerTime(),
                    inFlight ? null : instance.updatedAt(), instance.expectedTriggerTime(),
                    inFlight ? null : instance.error(), instance.claimNode(), instance.claimEpoch()));
        }
        return new InstanceHistory(instance, attempts);
    }
}
