package dev.tickwheel.server;

import dev.tickwheel.server.instance.InstanceStatus;
import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.time.ScheduleSpec;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * The server process of {@link RestartRecoveryTest}: {@code create} registers a job and 1 000 instances due over the
 * next few seconds; {@code resume} only starts the server. Every dispatch appends the instance ID to a file. The test
 * kills the first process with SIGKILL and starts the second on the same H2 files.
 */
public final class RestartScenario {

    private RestartScenario() {
    }

    public static void main(String[] args) throws Exception {
        String jdbcUrl = args[0];
        Path deliveries = Path.of(args[1]);
        String mode = args[2];
        FileChannel log = FileChannel.open(deliveries, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND);
        TickwheelServer server = TickwheelServer.builder()
                .jdbcUrl(jdbcUrl)
                .handler("record", ctx -> append(log, ctx.idempotencyKey()))
                .build()
                .start();
        if (mode.equals("create")) {
            Job job = server.jobs().create(JobSpec.of("restart", ScheduleSpec.api(), Target.handler("record")));
            for (int i = 0; i < 1_000; i++) {
                server.jobs().run(job.id(), 1_000 + 3L * i, null); // due from 1 s to 4 s from now
            }
            System.out.println("READY");
        } else {
            System.out.println("RESUMED");
        }
        System.out.flush();
        while (true) {
            Map<InstanceStatus, Long> counts = server.instances().countByStatus();
            System.out.println("STATUS " + counts.getOrDefault(InstanceStatus.WAITING, 0L) + " "
                    + counts.getOrDefault(InstanceStatus.DISPATCHING, 0L));
            System.out.flush();
            new CountDownLatch(1).await(100, java.util.concurrent.TimeUnit.MILLISECONDS);
        }
    }

    private static synchronized void append(FileChannel log, String idempotencyKey) throws IOException {
        log.write(ByteBuffer.wrap((idempotencyKey + "\n").getBytes(StandardCharsets.US_ASCII)));
    }
}
