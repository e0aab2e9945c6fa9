package dev.tickwheel.spring;

import dev.tickwheel.server.JobService;
import dev.tickwheel.server.JobSpec;
import dev.tickwheel.server.TickwheelServer;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Starts and stops scheduling with the application context. The engine bean is opened when it is created (its
 * migrations run, it joins the cluster; jobs can be created and run from then on, nothing fires); {@link #start()}
 * runs once every singleton exists: it declares the jobs given in code (created or brought up to date by name),
 * then starts scheduling. {@link #stop()} closes the engine, letting calls in flight end for up to
 * {@code tickwheel.stop-timeout} and recording their outcomes, in a phase after the web server has stopped taking
 * requests and before any singleton (the DataSource included) is destroyed.
 *
 * <p>Thread-safe: the context calls start and stop from one thread; {@link #isRunning()} from any.
 */
public class TickwheelLifecycle implements SmartLifecycle {

    /**
     * Starts before the web server (which starts at {@code Integer.MAX_VALUE - 1}) and stops after it has stopped
     * taking requests and after graceful shutdown; everything of a lower phase stops later.
     */
    public static final int PHASE = Integer.MAX_VALUE - 2048;

    private static final Logger log = LoggerFactory.getLogger(TickwheelLifecycle.class);

    private final TickwheelServer server;
    private final List<JobSpec> declaredJobs;
    private final AtomicBoolean running = new AtomicBoolean();

    /**
     * @param declaredJobs the jobs declared in code ({@link TickwheelJob}, {@link JobDefinition} beans), declared in
     *                     this order before scheduling begins
     */
    public TickwheelLifecycle(TickwheelServer server, List<JobSpec> declaredJobs) {
        this.server = server;
        this.declaredJobs = List.copyOf(declaredJobs);
    }

    @Override
    public void start() {
        if (!running.compareAndSet(false, true)) {
            return;
        }
        for (JobSpec spec : declaredJobs) {
            JobService.Declared declared = server.jobs().declare(spec);
            log.info("job '{}' (id {}) {}", spec.name(), declared.job().id(),
                    declared.change().name().toLowerCase(java.util.Locale.ROOT));
        }
        server.startScheduling();
    }

    @Override
    public void stop() {
        if (running.compareAndSet(true, false)) {
            server.close();
        }
    }

    @Override
    public boolean isRunning() {
        return running.get();
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
