package dev.tickwheel.example.reminders;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tickwheel.server.Await;
import dev.tickwheel.server.TickwheelServer;
import dev.tickwheel.server.store.ClusterView;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Two instances of the example on one PostgreSQL schema form one Tickwheel cluster: each takes part of the shards,
 * and reminders scheduled through one are sent by both.
 */
class ReminderClusterPostgresTest {

    private static final TestSchema SCHEMA = new TestSchema();
    private static final List<ConfigurableApplicationContext> INSTANCES = new ArrayList<>();

    @BeforeAll
    static void startTwoInstances() {
        for (int i = 0; i < 2; i++) {
            INSTANCES.add(new SpringApplicationBuilder(ReminderApplication.class)
                    .run("--server.port=0", "--spring.datasource.url=" + SCHEMA.jdbcUrl(),
                            "--spring.jmx.enabled=false"));
        }
    }

    @AfterAll
    static void stop() {
        INSTANCES.forEach(ConfigurableApplicationContext::close);
        SCHEMA.drop();
    }

    @Test
    void twoInstances_shareTheShards_andBothSendReminders() throws Exception {
        TickwheelServer first = INSTANCES.get(0).getBean(TickwheelServer.class);
        TickwheelServer second = INSTANCES.get(1).getBean(TickwheelServer.class);
        assertThat(first.nodeId()).isNotEqualTo(second.nodeId());
        await("both members hold shards", () -> holders(first.clusterView())
                .containsAll(Set.of(first.nodeId(), second.nodeId())));

        ReminderService service = INSTANCES.get(0).getBean(ReminderService.class);
        ReminderRepository reminders = INSTANCES.get(0).getBean(ReminderRepository.class);
        List<Long> ids = new ArrayList<>();
        Instant due = Instant.now().plusSeconds(1);
        for (int i = 0; i < 40; i++) {
            ids.add(service.schedule("member-" + i, "shared", due).id());
        }
        await("every reminder sent", () -> ids.stream()
                .allMatch(id -> reminders.find(id).orElseThrow().status().equals("SENT")));
        Set<Integer> senders = new HashSet<>();
        ids.forEach(id -> senders.add(reminders.find(id).orElseThrow().sentByNode()));
        assertThat(senders).as("runs are spread over the members' shards")
                .containsExactlyInAnyOrder(first.nodeId(), second.nodeId());
    }

    private static Set<Integer> holders(ClusterView view) {
        Set<Integer> holders = new HashSet<>();
        view.leases().stream().filter(lease -> lease.heldAt(view.dbNowMs()))
                .forEach(lease -> holders.add(lease.ownerNode()));
        return holders;
    }

    private static void await(String what, BooleanSupplier condition) {
        Await.until(what, Duration.ofSeconds(60), condition);
    }
}
