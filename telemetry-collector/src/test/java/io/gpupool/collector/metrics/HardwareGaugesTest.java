package io.gpupool.collector.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.avro.GpuSamples;
import io.gpupool.collector.publish.CollectingSink;
import io.gpupool.collector.sim.BusyGpus;
import io.gpupool.collector.sim.FleetFaults;
import io.gpupool.collector.sim.FleetSpec;
import io.gpupool.collector.sim.SimulatedFleet;
import java.time.Instant;
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

    private static double utilization(final CollectorMetrics metrics, final String uuid) {
        return metrics.registry().get("gpupool.gpu.utilization.percent").tag("uuid", uuid).gauge().value();
    }
}
