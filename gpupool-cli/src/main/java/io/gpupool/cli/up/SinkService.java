package io.gpupool.cli.up;

import io.gpupool.localstack.secure.StackPrincipal;
import io.gpupool.avro.JobEvent;
import io.gpupool.cli.submit.LocalSink;
import io.gpupool.sink.SinkConfig;
import io.gpupool.sink.SinkListener;
import io.gpupool.sink.SinkRunner;
import io.gpupool.sink.apply.Applier;
import io.gpupool.sink.apply.CommandTemplate;
import io.gpupool.sink.apply.ExecApplier;
import io.gpupool.sink.apply.SimulatedApplier;
import io.gpupool.metrics.MetricsServer;
import io.gpupool.topics.TopicCatalog;
import java.time.Duration;
import java.util.Set;

/**
 * The simulated sink (allocator-sink's): "runs" each placed job for its runtime, time-scaled, and
 * reports its events, closing the loop. What it runs is what the fleet shows as busy.
 */
public final class SinkService implements UpService {

    /** Runtime of a job that says nothing about it, before scaling. */
    static final Duration DEFAULT_RUNTIME = Duration.ofMinutes(10);

    /** --exec-jobs: time between SIGTERM and SIGKILL when a job that did not set its own is stopped. */
    static final Duration EXEC_GRACE = Duration.ofSeconds(10);

    private final PipelineOptions options;
    private final PipelineParts parts;

    public SinkService(final PipelineOptions options, final PipelineParts parts) {
        this.options = options;
        this.parts = parts;
    }

    @Override
    public String name() {
        return "sink";
    }

    @Override
    public AutoCloseable start(final UpContext context) throws Exception {
        final SinkConfig config = SinkConfig.defaults(context.bootstrapServers(),
                context.registryUrl().orElseThrow(() -> new IllegalStateException("the sink needs the schema registry")),
                LocalSink.directory(context.settings().broker().layout().dataDir()))
                .withTopics(TopicCatalog.defaults().withOverrides(context.config()))
                .withClientProperties(context.clientMap(StackPrincipal.SINK));
        final Applier simulated = new SimulatedApplier(options.timeScale, DEFAULT_RUNTIME);
        final SinkRunner sink = SinkRunner.create(config, options.execJobs
                ? new ExecOrSimulatedApplier(new ExecApplier(CommandTemplate.jobCommand(), EXEC_GRACE,
                        LocalSink.logDirectory(context.settings().broker().layout().dataDir())), simulated)
                : simulated);
        sink.addListener(new SinkListener() {
            @Override
            public void busyGpusChanged(final Set<String> gpuUuids) {
                parts.fleet().ifPresent(f -> f.busyGpus().set(gpuUuids));
            }

            @Override
            public void eventPublished(final JobEvent event) {
                parts.eventPublished(event);
            }
        });
        MetricsServer metrics = null;
        try {
            sink.start();
            metrics = MetricsServer.start(sink.metrics().registry(), MetricsServer.LOOPBACK, 0);
            parts.sink(sink);
            LocalSink.publish(context.settings().broker().layout().dataDir(), context.bootstrapServers(), options.execJobs);
            // Jobs adopted from the ledger of a previous run are running already.
            parts.fleet().ifPresent(f -> f.busyGpus().set(sink.busyGpuUuids()));
            context.out().printf("  sink       %s, %.0fx real time, ledger %s; metrics on http://127.0.0.1:%d/metrics%n",
                    options.execJobs ? "simulated (jobs with a command: real processes)" : "simulated", options.timeScale,
                    config.stateDir(), metrics.port());
            context.out().flush();
        } catch (Exception e) {
            if (metrics != null) {
                metrics.close();
            }
            sink.close();
            throw e;
        }
        final MetricsServer served = metrics;
        return () -> {
            try {
                // Unless a test took it over (and stops it itself).
                if (parts.takeSink().isPresent()) {
                    sink.close();
                }
            } finally {
                served.close();
            }
        };
    }
}
