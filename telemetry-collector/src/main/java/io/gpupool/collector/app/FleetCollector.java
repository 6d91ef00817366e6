package io.gpupool.collector.app;

import io.gpupool.collector.metrics.CollectorMetrics;
import io.gpupool.metrics.MetricsServer;
import io.gpupool.collector.publish.PublisherTopics;
import io.gpupool.collector.publish.TelemetryPublisher;
import io.gpupool.collector.sim.BusyGpus;
import io.gpupool.collector.sim.FleetFaults;
import io.gpupool.collector.sim.FleetRunner;
import io.gpupool.collector.sim.FleetSpec;
import io.gpupool.collector.sim.SimulatedFleet;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;

/**
 * One process publishing a whole simulated fleet (for {@code gpupool up}, e2e tests, benchmarks).
 * Callers steer it through {@link #busyGpus()} (what the sink says is running) and
 * {@link #faults()}. Per-GPU gauges are not served here: at 4,096 nodes they would be 300,000 series.
 */
public final class FleetCollector implements AutoCloseable {
    private final SimulatedFleet fleet;
    private final TelemetryPublisher publisher;
    private final FleetRunner runner;
    private final MetricsServer server;

    private FleetCollector(final SimulatedFleet fleet, final TelemetryPublisher publisher, final FleetRunner runner,
            final MetricsServer server) {
        this.fleet = fleet;
        this.publisher = publisher;
        this.runner = runner;
        this.server = server;
    }

    /**
     * @param metricsPort port of /metrics; 0 = any free port, negative = none
     * @param bufferRecords bounded buffer; give it several ticks' worth (2 records per node per tick)
     */
    public static FleetCollector start(final FleetSpec spec, final Duration interval, final String bootstrapServers,
            final String registryUrl, final PublisherTopics topics, final int bufferRecords, final int metricsPort)
            throws IOException {
        return start(spec, interval, bootstrapServers, Map.of(), registryUrl, topics, bufferRecords,
                MetricsServer.LOOPBACK, metricsPort);
    }

    /**
     * @param clientProperties extra Kafka and registry client settings (security, registry TLS and auth)
     * @param metricsHost      the address /metrics listens on (127.0.0.1 or 0.0.0.0)
     */
    public static FleetCollector start(final FleetSpec spec, final Duration interval, final String bootstrapServers,
            final Map<String, Object> clientProperties, final String registryUrl, final PublisherTopics topics,
            final int bufferRecords, final String metricsHost, final int metricsPort) throws IOException {
        final SimulatedFleet fleet = new SimulatedFleet(spec, new BusyGpus(), new FleetFaults());
        final TelemetryPublisher publisher = TelemetryPublisher.connectFleet(bootstrapServers, clientProperties, registryUrl,
                topics, bufferRecords);
        publisher.awaitReady();
        final FleetRunner runner = new FleetRunner(fleet, publisher, interval, Clock.systemUTC());
        MetricsServer server = null;
        if (metricsPort >= 0) {
            final CollectorMetrics metrics = new CollectorMetrics();
            metrics.bindPublisher(publisher);
            FunctionCounter.builder("gpupool.fleet.ticks", runner, FleetRunner::ticks).register(metrics.meterRegistry());
            FunctionCounter.builder("gpupool.fleet.late.ticks", runner, FleetRunner::lateTicks).register(metrics.meterRegistry());
            FunctionCounter.builder("gpupool.fleet.skipped.ticks", runner, FleetRunner::skippedTicks).register(metrics.meterRegistry());
            Gauge.builder("gpupool.fleet.nodes", fleet, f -> f.spec().nodes()).register(metrics.meterRegistry());
            server = MetricsServer.start(metrics.registry(), metricsHost, metricsPort);
        }
        runner.start();
        return new FleetCollector(fleet, publisher, runner, server);
    }

    public SimulatedFleet fleet() {
        return fleet;
    }

    public BusyGpus busyGpus() {
        return fleet.busyGpus();
    }

    public FleetFaults faults() {
        return fleet.faults();
    }

    public FleetRunner runner() {
        return runner;
    }

    public TelemetryPublisher publisher() {
        return publisher;
    }

    public int metricsPort() {
        return server == null ? -1 : server.port();
    }

    @Override
    public void close() {
        runner.close();
        publisher.close();
        if (server != null) {
            server.close();
        }
    }
}
