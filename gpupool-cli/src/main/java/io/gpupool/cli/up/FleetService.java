package io.gpupool.cli.up;

import io.gpupool.localstack.secure.StackPrincipal;
import io.gpupool.collector.app.FleetCollector;
import io.gpupool.metrics.MetricsServer;
import io.gpupool.collector.publish.PublisherTopics;
import io.gpupool.collector.sim.FleetSpec;
import io.gpupool.collector.sim.RandomFaults;
import io.gpupool.scheduler.query.QueryEndpoint;
import io.gpupool.topics.TopicCatalog;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The simulated fleet (telemetry-collector's): inventory and telemetry of every node. Ready once
 * the scheduler's query API counts every node of the fleet, so the first jobs see the whole pool.
 */
public final class FleetService implements UpService {

    private static final long READY_TIMEOUT_MILLIS = 120_000;

    private final PipelineOptions options;
    private final PipelineParts parts;

    public FleetService(final PipelineOptions options, final PipelineParts parts) {
        this.options = options;
        this.parts = parts;
    }

    @Override
    public String name() {
        return "fleet";
    }

    @Override
    public AutoCloseable start(final UpContext context) throws Exception {
        final FleetSpec spec = options.fleetSpec(PipelineParts.POOL);
        final String registry = context.registryUrl().orElseThrow(() -> new IllegalStateException("the fleet needs the schema registry"));
        final FleetCollector fleet = FleetCollector.start(spec, options.telemetryInterval, context.bootstrapServers(),
                context.clientMap(StackPrincipal.COLLECTOR), registry, PublisherTopics.from(TopicCatalog.defaults().withOverrides(context.config())),
                Math.max(20_000, spec.nodes() * 10), MetricsServer.LOOPBACK, 0);
        try {
            if (options.faultRate > 0) {
                fleet.fleet().randomFaults(new RandomFaults(options.seed, options.faultRate, 30));
            }
            parts.fleet(fleet);
            final long began = System.nanoTime();
            final Path dataDir = context.settings().broker().layout().dataDir();
            // a scheduler run apart may not be there yet (or be a dead one's stale endpoint): do not wait for it
            final boolean seen = !options.noScheduler && awaitNodes(QueryEndpoint.find(dataDir), spec.nodes());
            context.out().printf("  fleet      %d nodes x %d GPUs (%s), %d leaves, telemetry every %d ms; metrics on "
                            + "http://127.0.0.1:%d/metrics%s%n",
                    spec.nodes(), spec.gpusPerNode(), spec.spines() > 1 ? "InfiniBand and RoCE islands, H100 and A100" : "one island",
                    (spec.nodes() + spec.nodesPerLeaf() - 1) / spec.nodesPerLeaf(), options.telemetryInterval.toMillis(),
                    fleet.metricsPort(), seen ? String.format(" (scheduler sees them after %.1f s)", (System.nanoTime() - began) / 1e9) : "");
            context.out().flush();
        } catch (Exception e) {
            fleet.close();
            throw e;
        }
        return fleet;
    }

    /** Waits until the scheduler's pools hold {@code nodes} nodes; false without a scheduler here. */
    private static boolean awaitNodes(final Optional<String> scheduler, final int nodes) throws InterruptedException {
        if (scheduler.isEmpty()) {
            return false;
        }
        final SchedulerProbe probe = new SchedulerProbe(scheduler.get());
        final long deadline = System.currentTimeMillis() + READY_TIMEOUT_MILLIS;
        while (System.currentTimeMillis() < deadline) {
            // The pool appears once the scheduler has seen its first inventory.
            if (probe.pool(PipelineParts.POOL).map(p -> p.path("nodes").asInt()).orElse(0) >= nodes) {
                return true;
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException("the scheduler did not see the fleet's " + nodes + " nodes within "
                + READY_TIMEOUT_MILLIS / 1000 + " s; see the broker log and the scheduler's /metrics");
    }
}
