package dev.tickwheel.server.cluster;

import java.util.function.Consumer;

/**
 * Carries {@link ClusterEvent}s between members: on PostgreSQL over {@code LISTEN}/{@code NOTIFY} on a channel of the
 * store's schema; on H2 (one member) nowhere, since the one member owns every shard and acts locally.
 *
 * <p>Thread-safe. A member does not receive its own events.
 */
public interface ClusterBus extends AutoCloseable {

    /** Sends an event to every other member. Never blocks on the database; a failed send is logged and dropped. */
    void publish(ClusterEvent event);

    /** Starts delivering events from other members to {@code handler}, on the bus's own thread, in order. Once. */
    void start(Consumer<ClusterEvent> handler);

    /** Stops listening and sending. Idempotent. */
    @Override
    void close();

    /** The bus of a store with one member: sends nothing, receives nothing. */
    ClusterBus NONE = new ClusterBus() {
        @Override
        public void publish(ClusterEvent event) {
        }

        @Override
        public void start(Consumer<ClusterEvent> handler) {
        }

        @Override
        public void close() {
        }
    };
}
