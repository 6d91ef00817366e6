package io.gpupool.cli.up;

import io.gpupool.localstack.secure.StackPrincipal;
import io.gpupool.scheduler.query.QueryEndpoint;
import io.gpupool.scheduler.app.SchedulerApp;
import io.gpupool.scheduler.stream.SchedulerOptions;
import io.gpupool.topics.TopicCatalog;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/** The scheduler (both stages) on the local stack; its query URL goes into the data directory. */
public final class SchedulerService implements UpService {
    private final String applicationId;

    public SchedulerService() {
        this(SchedulerOptions.DEFAULT_APPLICATION_ID);
    }

    /**
     * Under another Kafka Streams application id: its stores and internal topics are its own, so two
     * pipelines on one broker (tests sharing the local stack) do not restore each other's state.
     */
    public SchedulerService(final String applicationId) {
        this.applicationId = applicationId;
    }

    @Override
    public String name() {
        return "scheduler";
    }

    @Override
    public AutoCloseable start(final UpContext context) throws Exception {
        final Path dataDir = context.settings().broker().layout().dataDir();
        final SchedulerOptions o = new SchedulerOptions(applicationId, context.bootstrapServers(),
                context.registryUrl().orElseThrow(() -> new IllegalStateException("the scheduler needs the schema registry")),
                context.clientProperties(StackPrincipal.SCHEDULER), false, dataDir.resolve("scheduler-state"), "127.0.0.1", 0, Map.of(),
                SchedulerOptions.DEFAULT_SNAPSHOT_EVERY, SchedulerOptions.DEFAULT_TICK_INTERVAL_MS,
                TopicCatalog.defaults().withOverrides(context.config()));
        final SchedulerApp app = SchedulerApp.start(o);
        try {
            if (!app.awaitRunning(Duration.ofMinutes(2))) {
                throw new IllegalStateException("the scheduler did not reach RUNNING: " + app.streams().state());
            }
        } catch (Exception e) {
            app.close();
            throw e;
        }
        final String url = "http://127.0.0.1:" + app.httpPort();
        QueryEndpoint.publish(dataDir, url);
        context.out().printf("  scheduler  queries and metrics on %s%n", url);
        context.out().flush();
        return () -> {
            QueryEndpoint.withdraw(dataDir, url);
            app.close();
        };
    }
}
