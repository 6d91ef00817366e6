package io.gpupool.scheduler.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpupool.avro.CongestionChange;
import io.gpupool.avro.UplinkChange;
import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.GpuHealth;
import io.gpupool.avro.GpuHealthChange;
import io.gpupool.avro.GpuSamples;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.LinkHealth;
import io.gpupool.avro.LinkSample;
import io.gpupool.avro.LinkSamples;
import io.gpupool.avro.LinkStateChange;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.avro.PortPhysState;
import io.gpupool.avro.PortState;
import io.gpupool.avro.Tick;
import io.gpupool.avro.UtilisationBand;
import io.gpupool.avro.UtilisationBandChange;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Stage 1 reduces telemetry to facts: only changes are journaled, bad samples are counted and dropped. */
class SequencerTelemetryTest {
    private Harness h;

    @BeforeEach
    void start() throws Exception {
        h = new Harness(1000, 10_000);
        h.inventory.pipeInput("n0", Fixtures.node("p1", "n0", "leaf-a", 8), 1_000);
        h.inventory.pipeInput("n1", Fixtures.node("p1", "n1", "leaf-a", 8), 1_000);
        h.journal();
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private List<Object> payloads() {
        return h.journal().stream().map(TestRecord::value).map(JournalEntry::getPayload).toList();
    }

    @Test
    void steadyTelemetryJournalsOneBandMoveAndThenOnlyHeartbeats() {
        for (int s = 0; s < 60; s++) {
            h.gpu.pipeInput("n0", Fixtures.gpus("n0", 8, 50 + (s % 2), 2_000 + s * 1_000L), 2_000 + s * 1_000L);
        }
        final List<Object> p = payloads();
        assertThat(p.stream().filter(UtilisationBandChange.class::isInstance)).hasSize(8);
        assertThat(p.stream().filter(UtilisationBandChange.class::isInstance).map(x -> ((UtilisationBandChange) x).getBand()))
                .containsOnly(UtilisationBand.MEDIUM);
        final long heartbeats = p.stream().filter(x -> x instanceof Tick t && t.getReason().equals("heartbeat")).count();
        // 60 s of samples, one heartbeat per 30 s of quiet
        assertThat(heartbeats).isBetween(1L, 2L);
        assertThat(p.stream().filter(GpuHealthChange.class::isInstance)).isEmpty();
        // and the clock ticked every 10 s of stream time
        assertThat(p.stream().filter(x -> x instanceof Tick t && t.getReason().equals("clock")).count()).isBetween(5L, 7L);
    }

    @Test
    void aCriticalXidTakesTheGpuOutAndEvictsTheJobOnIt() {
        h.jobs.pipeInput("j1", Fixtures.submit("j1", Fixtures.request("p1", 1, 8).build()), 2_000);
        final PlacementDecision placed = h.decisions().get(0);
        assertThat(placed.getOutcome()).isEqualTo(DecisionOutcome.PLACED);
        final String node = placed.getAssignments().get(0).getNodeId();
        final GpuSamples s = Fixtures.gpus(node, 8, 90, 3_000);
        s.getGpus().get(3).setXidCodes(List.of(79));
        h.gpu.pipeInput(node, s, 3_000);
        // the next sample has no Xid, but a critical Xid stays until the node is reset
        h.gpu.pipeInput(node, Fixtures.gpus(node, 8, 90, 4_000), 4_000);

        final List<GpuHealthChange> health = payloads().stream().filter(GpuHealthChange.class::isInstance)
                .map(GpuHealthChange.class::cast).toList();
        assertThat(health).hasSize(1);
        assertThat(health.get(0).getHealth()).isEqualTo(GpuHealth.UNHEALTHY);
        assertThat(health.get(0).getReasonCode()).isEqualTo("XID");
        assertThat(health.get(0).getXidCodes()).containsExactly(79);
        final List<PlacementDecision> after = h.decisions();
        assertThat(after.get(0).getOutcome()).isEqualTo(DecisionOutcome.EVICTED);
        assertThat(after.get(0).getReasonCode()).isEqualTo("HARDWARE_FAILURE");
        assertThat(after.get(0).getMessage()).contains("Xid 79");
        // requeued and placed again on the other node
        assertThat(after.stream().filter(d -> d.getOutcome() == DecisionOutcome.PLACED)
                .map(d -> d.getAssignments().get(0).getNodeId())).containsExactly(node.equals("n0") ? "n1" : "n0");
    }

    @Test
    void telemetryForUnknownNodesOrOutOfRangeIsCountedAndDropped() {
        h.gpu.pipeInput("n9", Fixtures.gpus("n9", 8, 10, 2_000), 2_000);
        final GpuSamples hot = Fixtures.gpus("n0", 8, 10, 2_000);
        hot.getGpus().get(0).setUtilizationGpuPct(180.0);
        h.gpu.pipeInput("n0", hot, 2_000);
        final GpuSamples cold = Fixtures.gpus("n0", 8, 10, 2_000);
        cold.getGpus().get(0).setTemperatureC(-300.0);
        h.gpu.pipeInput("n0", cold, 2_000);
        assertThat(payloads()).noneMatch(p -> p instanceof UtilisationBandChange || p instanceof GpuHealthChange);
        assertThat(h.counter("gpupool.telemetry.dropped", "reason", "unknown_node")).isEqualTo(1);
        assertThat(h.counter("gpupool.telemetry.dropped", "reason", "out_of_range")).isEqualTo(2);
    }

    @Test
    void linkDownFlappingAndBackUpAreJournaledOncePerChange() {
        h.link.pipeInput("n0", Fixtures.link("n0", true, 0, 2_000), 2_000);
        h.link.pipeInput("n0", Fixtures.link("n0", false, 1, 3_000), 3_000);
        h.link.pipeInput("n0", Fixtures.link("n0", false, 1, 4_000), 4_000);
        h.link.pipeInput("n0", Fixtures.link("n0", true, 1, 5_000), 5_000);
        h.link.pipeInput("n0", Fixtures.link("n0", true, 2, 6_000), 6_000);
        h.link.pipeInput("n0", Fixtures.link("n0", true, 3, 7_000), 7_000);
        final List<LinkHealth> changes = payloads().stream().filter(LinkStateChange.class::isInstance)
                .map(x -> ((LinkStateChange) x).getHealth()).toList();
        assertThat(changes).containsExactly(LinkHealth.DOWN, LinkHealth.UP, LinkHealth.FLAPPING);
    }

    @Test
    void eachNodesUplinkIsJournaledWhenItMovesByAStepForThePlacerToJudgeTheLeaf() {
        final LinkSamples busy0 = Fixtures.link("n0", true, 0, 2_000);
        busy0.getPorts().get(0).setTxBytesPerSec(49e9); // 98 % of 400 Gb/s
        final LinkSamples busy1 = Fixtures.link("n1", true, 0, 2_000);
        busy1.getPorts().get(0).setTxBytesPerSec(48e9); // 96 %
        h.link.pipeInput("n0", busy0, 2_000);
        assertThat(uplink("leaf-a")).isCloseTo(0.98, within(1e-9));
        h.link.pipeInput("n1", busy1, 2_000);
        assertThat(uplink("leaf-a")).isCloseTo(0.97, within(1e-9));
        // n0 moves by less than a step (98 -> 95 %), then by a step (-> 93 %), then stops being known
        final LinkSamples n0a = Fixtures.link("n0", true, 0, 3_000);
        n0a.getPorts().get(0).setTxBytesPerSec(47.5e9);
        h.link.pipeInput("n0", n0a, 3_000);
        final LinkSamples n0b = Fixtures.link("n0", true, 0, 4_000);
        n0b.getPorts().get(0).setTxBytesPerSec(46.5e9);
        h.link.pipeInput("n0", n0b, 4_000);
        final LinkSamples n0c = Fixtures.link("n0", true, 0, 5_000);
        n0c.getPorts().get(0).setRateGbps(null);
        h.link.pipeInput("n0", n0c, 5_000);
        final List<UplinkChange> u = payloads().stream().filter(UplinkChange.class::isInstance)
                .map(UplinkChange.class::cast).toList();
        assertThat(u).extracting(UplinkChange::getNodeId).containsExactly("n0", "n1", "n0", "n0");
        assertThat(u).extracting(UplinkChange::getUplinkUtilisationPct).containsExactly(98.0, 96.0, 93.0, null);
        // stage 1 no longer judges leaves: no task sees all nodes of one
        assertThat(payloads()).noneMatch(CongestionChange.class::isInstance);
    }

    @Test
    void theLeafUplinkGaugeIsTheMeanOfItsNodesBusiestPortsAndFollowsNodesAcrossLeaves() {
        // n0: 10 GB/s on a 400 Gb/s port (20 %) and 15 GB/s on a 200 Gb/s port (60 %): the busiest port counts
        h.link.pipeInput("n0", sending("n0", 2_000, port("mlx5_0", 400, 10e9), port("mlx5_1", 200, 15e9)), 2_000);
        // n1: 20 GB/s on a 400 Gb/s port (40 %)
        h.link.pipeInput("n1", sending("n1", 2_000, port("mlx5_0", 400, 20e9)), 2_000);
        // a node without a rate counts neither as a figure nor as a node
        h.inventory.pipeInput("n2", Fixtures.node("p1", "n2", "leaf-a", 8), 2_000);
        final LinkSamples unrated = sending("n2", 2_000, port("mlx5_0", 400, 30e9));
        unrated.getPorts().get(0).setRateGbps(null);
        h.link.pipeInput("n2", unrated, 2_000);
        assertThat(uplink("leaf-a")).isCloseTo(0.50, within(1e-9));
        assertThat(uplinkNodes("leaf-a")).isEqualTo(2);
        assertThat(h.meters.get(LeafUplinkGauges.UTILIZATION).tags("pool", "p1", "leaf", "leaf-a", "task", "0_0").gauge())
                .as("labelled with pool and the stage-1 task").isNotNull();

        // n1 is re-cabled to leaf-b: it leaves leaf-a's mean and takes its figure along
        h.inventory.pipeInput("n1", Fixtures.node("p1", "n1", "leaf-b", 8), 3_000);
        assertThat(uplink("leaf-a")).isCloseTo(0.60, within(1e-9));
        assertThat(uplinkNodes("leaf-a")).isEqualTo(1);
        assertThat(uplink("leaf-b")).isCloseTo(0.40, within(1e-9));

        // n0 leaves: no figure is left for leaf-a, and its series go rather than keep a stale value
        h.inventory.pipeInput("n0", null, 4_000);
        assertThat(h.meters.find(LeafUplinkGauges.UTILIZATION).tag("leaf", "leaf-a").gauge()).isNull();
        assertThat(h.meters.find(LeafUplinkGauges.NODES).tag("leaf", "leaf-a").gauge()).isNull();
        assertThat(uplink("leaf-b")).isCloseTo(0.40, within(1e-9));
    }

    private double uplink(final String leaf) {
        return h.meters.get(LeafUplinkGauges.UTILIZATION).tag("leaf", leaf).gauge().value();
    }

    private double uplinkNodes(final String leaf) {
        return h.meters.get(LeafUplinkGauges.NODES).tag("leaf", leaf).gauge().value();
    }

    private static LinkSample port(final String hca, final double rateGbps, final double txBytesPerSec) {
        return LinkSample.newBuilder().setHca(hca).setPort(1).setState(PortState.ACTIVE).setPhysState(PortPhysState.LINK_UP)
                .setLinkDowned(0L).setSymbolErrors(0L).setRcvErrors(0L).setRateGbps(rateGbps).setTxBytesPerSec(txBytesPerSec)
                .build();
    }

    private static LinkSamples sending(final String node, final long at, final LinkSample... ports) {
        return LinkSamples.newBuilder().setNodeId(node).setSampledAt(Instant.ofEpochMilli(at)).setSource("test")
                .setPorts(List.of(ports)).build();
    }
}
