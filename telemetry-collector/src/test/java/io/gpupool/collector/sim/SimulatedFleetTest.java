package io.gpupool.collector.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.avro.GpuSample;
import io.gpupool.avro.GpuSamples;
import io.gpupool.avro.LinkLayer;
import io.gpupool.avro.LinkSample;
import io.gpupool.avro.NodeInventory;
import io.gpupool.avro.PortState;
import io.gpupool.collector.publish.CollectingSink;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class SimulatedFleetTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    @Test
    void shapeTwoModelsAndBothFabrics() {
        final SimulatedFleet fleet = new SimulatedFleet(FleetSpec.small(7), new BusyGpus(), new FleetFaults());
        final CollectingSink sink = new CollectingSink();
        fleet.tick(T0, 1000, sink);
        assertThat(sink.inventories).hasSize(16);
        assertThat(sink.gpus).hasSize(16);
        assertThat(sink.links).hasSize(16);
        final Set<String> models = sink.inventories.stream().flatMap(i -> i.getGpus().stream())
                .map(g -> g.getModel()).collect(Collectors.toSet());
        assertThat(models).containsExactlyInAnyOrder("NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB");
        final Set<LinkLayer> layers = sink.inventories.stream().flatMap(i -> i.getHcas().stream())
                .map(h -> h.getLinkLayer()).collect(Collectors.toSet());
        assertThat(layers).containsExactlyInAnyOrder(LinkLayer.INFINIBAND, LinkLayer.ETHERNET);
        assertThat(sink.inventories.stream().map(NodeInventory::getLeaf).distinct()).hasSize(4);
        assertThat(sink.inventories.stream().map(NodeInventory::getSpine).distinct()).hasSize(2);
        assertThat(fleet.fabric().primary("node-00000").leaf()).isEqualTo(sink.inventories.get(0).getLeaf());

        sink.clear();
        fleet.tick(T0.plusSeconds(1), 1000, sink);
        assertThat(sink.inventories).as("inventory at start only").isEmpty();
        assertThat(sink.gpus).hasSize(16);
    }

    @Test
    void sameSeedSameRecordsOtherSeedOtherRecords() {
        assertThat(run(1)).isEqualTo(run(1)).isNotEqualTo(run(2));
    }

    @Test
    void loadFollowsTheBusyGpus() {
        final SimulatedFleet fleet = new SimulatedFleet(FleetSpec.small(3), new BusyGpus(), new FleetFaults());
        final List<String> busy = fleet.gpuUuids("node-00005").subList(0, 4);
        fleet.busyGpus().set(busy);
        final CollectingSink sink = new CollectingSink();
        fleet.tick(T0, 1000, sink);
        final GpuSamples n5 = sink.gpus.get(5);
        for (final GpuSample g : n5.getGpus()) {
            if (busy.contains(g.getUuid())) {
                assertThat(g.getUtilizationGpuPct()).isGreaterThanOrEqualTo(85.0);
                assertThat(g.getMemoryUsedMiB()).isGreaterThan(g.getMemoryTotalMiB() / 2);
            } else {
                assertThat(g.getUtilizationGpuPct()).isLessThan(5.0);
            }
        }
        assertThat(sink.links.get(5).getPorts().get(0).getTxBytesPerSec()).isPositive();
        assertThat(sink.links.get(6).getPorts().get(0).getTxBytesPerSec()).as("idle node").isZero();
    }

    @Test
    void injectedFaults() {
        final SimulatedFleet fleet = new SimulatedFleet(FleetSpec.small(3), new BusyGpus(), new FleetFaults());
        final FleetFaults f = fleet.faults();
        f.xid("node-00001", 3, 79);
        f.overheat("node-00002", 0, 97.0);
        f.linkDown("node-00003", "mlx5_0");
        f.linkFlapping("node-00004", "mlx5_1");
        f.silence("node-00005");
        final CollectingSink sink = new CollectingSink();
        fleet.tick(T0, 1000, sink);
        assertThat(gpu(sink, "node-00001", 3).getXidCodes()).containsExactly(79);
        assertThat(gpu(sink, "node-00001", 2).getXidCodes()).isEmpty();
        assertThat(gpu(sink, "node-00002", 0).getTemperatureC()).isEqualTo(97.0);
        final LinkSample down = port(sink, "node-00003", "mlx5_0");
        assertThat(down.getState()).isEqualTo(PortState.DOWN);
        assertThat(down.getLinkDowned()).isEqualTo(1L);
        assertThat(sink.gpus).noneMatch(g -> g.getNodeId().equals("node-00005"));

        sink.clear();
        fleet.tick(T0.plusSeconds(1), 1000, sink);
        assertThat(gpu(sink, "node-00001", 3).getXidCodes()).as("an Xid is reported once").isEmpty();
        assertThat(port(sink, "node-00004", "mlx5_1").getState()).isEqualTo(PortState.DOWN);
        sink.clear();
        fleet.tick(T0.plusSeconds(2), 1000, sink);
        assertThat(port(sink, "node-00004", "mlx5_1").getState()).isEqualTo(PortState.ACTIVE);
        sink.clear();
        fleet.tick(T0.plusSeconds(3), 1000, sink);
        assertThat(port(sink, "node-00004", "mlx5_1").getLinkDowned()).as("flapped twice").isEqualTo(2L);

        f.clear("node-00005");
        sink.clear();
        fleet.tick(T0.plusSeconds(4), 1000, sink);
        assertThat(sink.inventories).extracting(NodeInventory::getNodeId).containsExactly("node-00005");
    }

    @Test
    void faultsByChanceAreSeededAndEnd() {
        final List<Object> a = chaos(5);
        assertThat(a).isEqualTo(chaos(5)).isNotEqualTo(chaos(6));
        final SimulatedFleet fleet = new SimulatedFleet(FleetSpec.small(1), new BusyGpus(), new FleetFaults());
        fleet.randomFaults(new RandomFaults(9, 0.2, 3));
        final CollectingSink sink = new CollectingSink();
        for (int t = 0; t < 30; t++) {
            fleet.tick(T0.plusSeconds(t), 1000, sink);
        }
        assertThat(sink.gpus.size()).as("some nodes went silent for a while").isLessThan(30 * 16);
        final long xids = sink.gpus.stream().flatMap(g -> g.getGpus().stream()).filter(g -> !g.getXidCodes().isEmpty()).count();
        final long hot = sink.gpus.stream().flatMap(g -> g.getGpus().stream()).filter(g -> g.getTemperatureC() >= 90).count();
        final long down = sink.links.stream().flatMap(l -> l.getPorts().stream()).filter(p -> p.getState() == PortState.DOWN).count();
        assertThat(xids).isPositive();
        assertThat(hot).isPositive();
        assertThat(down).isPositive();
        // a silenced node comes back after its 3 ticks and announces itself again
        assertThat(sink.inventories.size()).isGreaterThan(16);
    }

    private static List<Object> chaos(final long seed) {
        final SimulatedFleet fleet = new SimulatedFleet(FleetSpec.small(1), new BusyGpus(), new FleetFaults());
        fleet.randomFaults(new RandomFaults(seed, 0.1, 2));
        final CollectingSink sink = new CollectingSink();
        for (int t = 0; t < 10; t++) {
            fleet.tick(T0.plusSeconds(t), 1000, sink);
        }
        return List.of(sink.inventories, sink.gpus, sink.links);
    }

    private static List<Object> run(final long seed) {
        final SimulatedFleet fleet = new SimulatedFleet(FleetSpec.small(seed), new BusyGpus(), new FleetFaults());
        fleet.busyGpus().set(fleet.gpuUuids("node-00001"));
        final CollectingSink sink = new CollectingSink();
        fleet.tick(T0, 1000, sink);
        fleet.tick(T0.plusSeconds(1), 1000, sink);
        return List.of(sink.inventories, sink.gpus, sink.links);
    }

    private static GpuSample gpu(final CollectingSink sink, final String node, final int index) {
        return sink.gpus.stream().filter(g -> g.getNodeId().equals(node)).findFirst().orElseThrow().getGpus().get(index);
    }

    private static LinkSample port(final CollectingSink sink, final String node, final String hca) {
        return sink.links.stream().filter(l -> l.getNodeId().equals(node)).findFirst().orElseThrow()
                .getPorts().stream().filter(p -> p.getHca().equals(hca)).findFirst().orElseThrow();
    }
}
