package io.gpupool.cli.up;

import io.gpupool.localstack.secure.StackPrincipal;
import io.gpupool.scheduler.query.QueryEndpoint;
import io.gpupool.scheduler.app.RestoreProgress;
import io.gpupool.scheduler.app.SchedulerApp;
import io.gpupool.scheduler.stream.SchedulerOptions;
import io.gpupool.topics.TopicCatalog;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.streams.KafkaStreams;

/** The scheduler (both stages) on the local stack; its query URL goes into the data directory. */
public final class SchedulerService implements UpService {
    private static final Duration PROGRESS_EVERY = Duration.ofSeconds(5);
    private static final Duration START_LIMIT = Duration.ofMinutes(5);
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
                TopicCatalog.defaults().withOverrides(context.config()))
                // every tenant's job topic (up --tenants, and those of earlier runs): none is left unread
                .withTenantTopics(true);
        final SchedulerApp app = SchedulerApp.start(o);
        try {
            awaitRunning(app, context);
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

    /**
     * Waits for RUNNING (at most {@link #START_LIMIT}), saying every {@link #PROGRESS_EVERY} what it waits for:
     * after an unclean stop the stores restore from their changelogs, which takes what it takes.
     */
    private static void awaitRunning(final SchedulerApp app, final UpContext context) throws InterruptedException {
        final long t0 = System.nanoTime();
        while (!app.awaitRunning(PROGRESS_EVERY)) {
            final KafkaStreams.State state = app.streams().state();
            final long now = System.nanoTime();
            if (state == KafkaStreams.State.ERROR || state == KafkaStreams.State.NOT_RUNNING
                    || now - t0 > START_LIMIT.toNanos()) {
                throw new IllegalStateException("the scheduler did not reach RUNNING: " + state);
            }
            context.out().printf(Locale.ROOT, "  scheduler  starting (%.0f s): %s%n", (now - t0) / 1e9,
                    waitingFor(state, app.restore(), now));
            context.out().flush();
        }
    }

    static String waitingFor(final KafkaStreams.State state, final RestoreProgress.Reading r, final long nowNs) {
        if (r.restoring() > 0) {
            return String.format(Locale.ROOT, "restoring its state from the changelogs: %,d of %,d records (%,.0f records/s)",
                    r.restored(), r.total(), r.recordsPerSecond(nowNs));
        }
        if (r.total() > 0) { // what is left: each pool's engine from its last snapshot plus the journal entries since
            return String.format(Locale.ROOT, "state restored (%,d records); rebuilding each pool's engine from its last "
                    + "snapshot and the journal entries since (a few snapshots' worth at most) (%s)", r.restored(), state);
        }
        return "joining its Kafka Streams group and taking its tasks (" + state + ")";
    }
}
