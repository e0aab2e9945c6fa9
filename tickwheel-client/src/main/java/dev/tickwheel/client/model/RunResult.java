package dev.tickwheel.client.model;

import java.time.Instant;

/**
 * The answer to a run: the instance it made, or the one its key names.
 *
 * <p>Immutable.
 *
 * @param instanceId          the instance's ID
 * @param expectedTriggerTime when it is (or was) due
 * @param key                 the caller's key, or null
 * @param created             true if this call created the instance; false if its key named an existing one (also
 *                            after a retry of this client whose first attempt made it)
 * @param status              the instance's status (WAITING when just created)
 */
public record RunResult(long instanceId, Instant expectedTriggerTime, String key, boolean created,
                        InstanceStatus status) {
}
