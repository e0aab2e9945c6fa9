package dev.tickwheel.server.instance;

import java.util.Objects;

/**
 * What writing one on-demand run did: created its instance, found the instance its key already names, or found no
 * job to run.
 *
 * <p>Immutable.
 *
 * @param outcome  which of the three
 * @param instance the instance created or found; null for {@link Outcome#NO_JOB}
 */
public record RunWrite(Outcome outcome, Instance instance) {

    /** What a run write did. */
    public enum Outcome {
        /** A new instance was stored. */
        CREATED,
        /** The run's key already named an instance of the job: that one is returned, nothing was written. */
        EXISTING,
        /** The job does not exist (or was deleted meanwhile): nothing was written. */
        NO_JOB
    }

    public RunWrite {
        Objects.requireNonNull(outcome, "outcome");
        if ((instance == null) != (outcome == Outcome.NO_JOB)) {
            throw new IllegalArgumentException("an instance comes with CREATED and EXISTING only: " + outcome);
        }
    }

    public boolean created() {
        return outcome == Outcome.CREATED;
    }
}
