package dev.tickwheel.server.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The text form of {@link ClusterEvent}s on the bus: one line per event, {@code <session> <type> <args>}, many lines
 * per notification payload.
 *
 * <pre>
 *   8431773001 arm 7301234567890 7300000000001 17 1790000000000   Arm(instanceId, jobId, shard, triggerAtMs)
 *   8431773001 cancelled 7301234567890 7300000000001              Cancelled(instanceId, jobId)
 *   8431773001 moved 7301234567890 7300000000001 17 1790000000000 Rescheduled(instanceId, jobId, shard, triggerAtMs)
 *   8431773001 job 7300000000001                                  JobChanged(jobId)
 *   8431773001 gathered 7300000000001                             Gathered(jobId)
 *   8431773001 settled 7301234567890                              CallbackSettled(instanceId)
 * </pre>
 *
 * <p>Every field is a decimal {@code long} (a shard an {@code int}), so lines are ASCII and a payload's length in characters is its length in
 * bytes. A line this version cannot read (a type from a newer version, garbage) is skipped by the reader: prompts are
 * hints.
 *
 * <p>Stateless.
 */
final class EventLines {

    /** NOTIFY payloads must be shorter than 8000 bytes (PostgreSQL's default build). */
    static final int MAX_PAYLOAD_BYTES = 7_999;

    /** A line read back: the sender's session and its event. */
    record Line(long session, ClusterEvent event) {
    }

    private EventLines() {
    }

    /**
     * One line, without its newline.
     *
     * @throws IllegalArgumentException for {@link ClusterEvent.Resync}, which is raised locally and never sent
     */
    static String encode(long session, ClusterEvent event) {
        if (event instanceof ClusterEvent.Arm arm) {
            return session + " arm " + arm.instanceId() + " " + arm.jobId() + " " + arm.shard() + " "
                    + arm.triggerAtMs() + priorityField(arm.priority());
        } else if (event instanceof ClusterEvent.Cancelled cancelled) {
            return session + " cancelled " + cancelled.instanceId() + " " + cancelled.jobId();
        } else if (event instanceof ClusterEvent.Rescheduled moved) {
            return session + " moved " + moved.instanceId() + " " + moved.jobId() + " " + moved.shard() + " "
                    + moved.triggerAtMs() + priorityField(moved.priority());
        } else if (event instanceof ClusterEvent.JobChanged changed) {
            return session + " job " + changed.jobId();
        } else if (event instanceof ClusterEvent.Gathered gathered) {
            return session + " gathered " + gathered.jobId();
        } else if (event instanceof ClusterEvent.CallbackSettled settled) {
            return session + " settled " + settled.instanceId();
        }
        throw new IllegalArgumentException("not sent on the bus: " + event);
    }

    /** An instance's own priority as a last field; none for its job's (the line a member before priorities sent). */
    private static String priorityField(Integer priority) {
        return priority == null ? "" : " " + priority;
    }

    /** The priority field of a line of {@code fields}, whose priority, if any, is its 7th field. */
    private static Integer priority(String[] fields) {
        return fields.length == 7 ? Integer.valueOf(fields[6]) : null;
    }

    /**
     * The events as payloads of at most {@link #MAX_PAYLOAD_BYTES}, lines separated by {@code '\n'}, in order: as
     * few payloads as fit.
     */
    static List<String> payloads(long session, List<ClusterEvent> events) {
        List<String> payloads = new ArrayList<>();
        StringBuilder payload = new StringBuilder(MAX_PAYLOAD_BYTES);
        for (ClusterEvent event : events) {
            String line = encode(session, event); // at most 101 characters: four longs, two ints, a type
            if (payload.length() > 0 && payload.length() + 1 + line.length() > MAX_PAYLOAD_BYTES) {
                payloads.add(payload.toString());
                payload.setLength(0);
            }
            if (payload.length() > 0) {
                payload.append('\n');
            }
            payload.append(line);
        }
        if (payload.length() > 0) {
            payloads.add(payload.toString());
        }
        return payloads;
    }

    /** Reads one line; empty if it is not a line of this format. */
    static Optional<Line> decode(String line) {
        String[] fields = line.strip().split(" ");
        try {
            if (fields.length < 2) {
                return Optional.empty();
            }
            long session = Long.parseLong(fields[0]);
            ClusterEvent event = switch (fields[1]) {
                case "arm" -> fields.length == 6 || fields.length == 7 ? new ClusterEvent.Arm(
                        Long.parseLong(fields[2]), Long.parseLong(fields[3]), Integer.parseInt(fields[4]),
                        Long.parseLong(fields[5]), priority(fields)) : null;
                case "moved" -> fields.length == 6 || fields.length == 7 ? new ClusterEvent.Rescheduled(
                        Long.parseLong(fields[2]), Long.parseLong(fields[3]), Integer.parseInt(fields[4]),
                        Long.parseLong(fields[5]), priority(fields)) : null;
                case "cancelled" -> fields.length == 4
                        ? new ClusterEvent.Cancelled(Long.parseLong(fields[2]), Long.parseLong(fields[3])) : null;
                case "job" -> fields.length == 3 ? new ClusterEvent.JobChanged(Long.parseLong(fields[2])) : null;
                case "gathered" -> fields.length == 3 ? new ClusterEvent.Gathered(Long.parseLong(fields[2])) : null;
                case "settled" -> fields.length == 3
                        ? new ClusterEvent.CallbackSettled(Long.parseLong(fields[2])) : null;
                default -> null;
            };
            return event == null ? Optional.empty() : Optional.of(new Line(session, event));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
