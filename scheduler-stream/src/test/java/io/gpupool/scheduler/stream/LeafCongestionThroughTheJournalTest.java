package io.gpupool.scheduler.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.LinkSamples;
import io.gpupool.avro.NodeAssignment;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.avro.TopologyScope;
import org.junit.jupiter.api.Test;

/**
 * Both stages: nodes' uplink figures go through the journal and the placer judges each leaf on all
 * its nodes, so a multi-node job avoids a busy leaf even though no single node's figure, nor any
 * stage-1 task's share of the leaf, says so on its own.
 */
class LeafCongestionThroughTheJournalTest {
    private static LinkSamples sending(final String node, final double gbitPerS, final long at) {
        final LinkSamples s = Fixtures.link(node, true, 0, at);
        s.getPorts().get(0).setTxBytesPerSec(gbitPerS * 1e9 / 8); // on a 400 Gb/s port
        return s;
    }

    /** Submits a 2x8 gang that prefers one leaf; the leaf it was placed on. */
    private static String gangLands(final Harness h, final String job, final long at) {
        h.jobs.pipeInput(job, Fixtures.submit(job, Fixtures.request("p1", 2, 8).setTopology(TopologyScope.SAME_LEAF)
                .build()), at);
        final PlacementDecision d = h.decisions().stream().filter(x -> x.getJobId().equals(job)).findFirst()
                .orElseThrow();
        assertThat(d.getOutcome()).isEqualTo(DecisionOutcome.PLACED);
        final String node = d.getAssignments().stream().map(NodeAssignment::getNodeId).findFirst().orElseThrow();
        return node.startsWith("a") ? "leaf-a" : "leaf-b";
    }

    @Test
    void aGangOnOneLeafAvoidsTheLeafWhoseNodesAverageAbove70Percent() throws Exception {
        try (Harness h = new Harness(1000, 600_000)) {
            for (final String n : new String[] {"a0", "a1", "b0", "b1"}) {
                h.inventory.pipeInput(n, Fixtures.node("p1", n, n.startsWith("a") ? "leaf-a" : "leaf-b", 8), 1_000);
            }
            // leaf-a: 96 % and 60 %, mean 78 %: congested; leaf-b: 50 % and 60 %, mean 55 %
            h.link.pipeInput("a0", sending("a0", 384, 2_000), 2_000);
            h.link.pipeInput("a1", sending("a1", 240, 2_000), 2_000);
            h.link.pipeInput("b0", sending("b0", 200, 2_000), 2_000);
            h.link.pipeInput("b1", sending("b1", 240, 2_000), 2_000);
            assertThat(gangLands(h, "g1", 3_000)).isEqualTo("leaf-b");
            // g1 ends; leaf-a cools down (a0 to 40 %: mean 50 %) while leaf-b heats up (b0 to 90 %: mean 75 %)
            h.events.pipeInput("g1", h.event("g1", JobEventType.STARTED, 3_500), 3_500);
            h.events.pipeInput("g1", h.event("g1", JobEventType.COMPLETED, 3_600), 3_600);
            h.link.pipeInput("a0", sending("a0", 160, 4_000), 4_000);
            h.link.pipeInput("b0", sending("b0", 360, 4_000), 4_000);
            assertThat(gangLands(h, "g2", 5_000)).isEqualTo("leaf-a");
        }
    }
}
