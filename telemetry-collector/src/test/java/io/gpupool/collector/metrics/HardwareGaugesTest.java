package io.gpupool.collector.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.avro.GpuSamples;
import io.gpupool.avro.NodeInventory;
import io.gpupool.collector.publish.CollectingSink;
import io.gpupool.collector.sim.BusyGpus;
import io.gpupool.collector.sim.FleetFaults;
import io.gpupool.collector.sim.FleetSpec;
import io.gpupool.collector.sim.SimulatedFleet;
import io.micrometer.core.instrument.Gauge;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class HardwareGaugesTest {

    @Test
    void aGpuGoneFromTheSamplesShowsNaNNotItsLastValue() {
        final SimulatedFleet fleet = new SimulatedFleet(new FleetSpec("p", 1, 2, 1, 1, 1, 0, 3), new BusyGpus(), new FleetFaults());
        fleet.busyGpus().set(fleet.gpuUuids("node-00000"));
        final CollectingSink sink = new CollectingSink();
        fleet.tick(Instant.EPOCH, 1000, sink);
        final CollectorMetrics metrics = new CollectorMetrics();
        metrics.hardware().inventory(sink.inventories.get(0));
        metrics.hardware().gpus(sink.gpus.get(0));
        final String gone = fleet.gpuUuids("node-00000").get(1);
        assertThat(utilization(metrics, gone)).isGreaterThan(80.0);

        final GpuSamples withoutGpu1 = GpuSamples.newBuilder(sink.gpus.get(0)).setGpus(sink.gpus.get(0).getGpus().subList(0, 1)).build();
        metrics.hardware().gpus(withoutGpu1);
        assertThat(utilization(metrics, gone)).isNaN();
        assertThat(utilization(metrics, fleet.gpuUuids("node-00000").get(0))).isGreaterThan(80.0);
    }

    @Test
    void gpuAndPortSeriesCarryTheirNodesPoolAndFollowItToAnotherPool() {
        final SimulatedFleet fleet = new SimulatedFleet(new FleetSpec("pool-a", 1, 2, 1, 1, 1, 0, 3), new BusyGpus(), new FleetFaults());
        final CollectingSink sink = new CollectingSink();
        fleet.tick(Instant.EPOCH, 1000, sink);
        final CollectorMetrics metrics = new CollectorMetrics();
        final NodeInventory inventory = sink.inventories.get(0);
        metrics.hardware().inventory(inventory);
        metrics.hardware().gpus(sink.gpus.get(0));
        metrics.hardware().links(sink.links.get(0));
        assertThat(values(metrics, "gpupool.gpu.temperature.celsius", "pool-a")).hasSize(2).noneMatch(v -> v.isNaN());
        assertThat(values(metrics, "gpupool.ib.port.rate.gbps", "pool-a")).hasSize(1).noneMatch(v -> v.isNaN());

        // the node is moved to another pool: its series now carry that pool, the old ones show NaN
        metrics.hardware().inventory(NodeInventory.newBuilder(inventory).setPool("pool-b").build());
        metrics.hardware().gpus(sink.gpus.get(0));
        metrics.hardware().links(sink.links.get(0));
        assertThat(values(metrics, "gpupool.gpu.temperature.celsius", "pool-b")).hasSize(2).noneMatch(v -> v.isNaN());
        assertThat(values(metrics, "gpupool.ib.port.rate.gbps", "pool-b")).hasSize(1).noneMatch(v -> v.isNaN());
        assertThat(values(metrics, "gpupool.gpu.temperature.celsius", "pool-a")).hasSize(2).allMatch(v -> v.isNaN());
        assertThat(values(metrics, "gpupool.ib.port.rate.gbps", "pool-a")).hasSize(1).allMatch(v -> v.isNaN());
    }

    private static List<Double> values(final CollectorMetrics metrics, final String name, final String pool) {
        return metrics.registry().get(name).tag("pool", pool).gauges().stream().map(Gauge::value).toList();
    }

    private static double utilization(final CollectorMetrics metrics, final String uuid) {
        return metrics.registry().get("gpupool.gpu.utilization.percent").tag("uuid", uuid).gauge().value();
    }
}
