package io.gpupool.scheduler.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.GpuAssignment;
import io.gpupool.avro.JournalPosition;
import io.gpupool.avro.NodeAssignment;
import io.gpupool.avro.PlacementDecision;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Recorded PLACED messages as people read them: the leaf called a leaf, one sign for the score, GPU indexes said so. */
class DecisionWordingTest {

    @Test
    void aSingleNodePlacementNamesItsGpusAndLeafAndTheScoreOfTheDecisionField() {
        // as recorded by the engine: "node" for the leaf, the score with the engine's sign
        final PlacementDecision d = placed("placed on node-00003 (node leaf-ib-000) by best-fit, score 250.0", -250.0,
                part("node-00003", "leaf-ib-000", "spine-ib-00", 1000, 4, 5, 6, 7));
        assertEquals("placed on node-00003 GPUs 4-7 (one node, leaf leaf-ib-000) by best-fit, score -250 (higher is better)",
                DecisionWording.message(d));
    }

    @Test
    void aGangOnOneLeafKeepsWhatTheEngineAddedAfterTheScore() {
        final PlacementDecision d = placed("placed on n1, n2 (leaf l0) by best-fit, score 0.0; preempted j9 (1 victim)", -0.0,
                part("n1", "l0", "s0", 1000, 0, 1), part("n2", "l0", "s0", 1000, 0, 1));
        assertEquals("placed on n1, n2, GPUs 0,1 each (one leaf, l0) by best-fit, score 0 (higher is better); "
                + "preempted j9 (1 victim)", DecisionWording.message(d));
    }

    @Test
    void aShareAndAGangOverTwoSpines() {
        assertEquals("placed on n1 GPU 3 (250 milli) (one node, leaf l0) by fgd, score -0.125 (higher is better)",
                DecisionWording.message(placed("placed on n1 (node l0) by fgd, score 0.125", -0.125,
                part("n1", "l0", "s0", 250, 3))));
        final String spread = DecisionWording.message(placed("placed on a, b (pool l0) by best-fit, score 2.0", -2.0,
                part("a", "l0", "s0", 1000, 0), part("b", "l9", "s9", 1000, 0)));
        assertTrue(spread.startsWith("placed on a, b, GPU 0 each (2 spines, 2 leaves)"), spread);
    }

    @Test
    void otherDecisionsReadAsRecorded() {
        final PlacementDecision q = placed("needs 8 GPUs on one node; best node n1 has 4 free", null);
        q.setOutcome(DecisionOutcome.QUEUED);
        assertEquals("needs 8 GPUs on one node; best node n1 has 4 free", DecisionWording.message(q));
        assertEquals("0", DecisionWording.score(-0.0));
        assertEquals("-1.5", DecisionWording.score(-1.5));
    }

    private static PlacementDecision placed(final String message, final Double score, final NodeAssignment... parts) {
        return PlacementDecision.newBuilder().setDecisionId("p-1").setJobId("j").setPool("p")
                .setOutcome(DecisionOutcome.PLACED).setReasonCode("PLACED").setMessage(message)
                .setAssignments(List.of(parts)).setScore(score).setPolicy(message.contains("fgd") ? "fgd" : "best-fit")
                .setCause(new JournalPosition(0, 1L, Instant.EPOCH)).build();
    }

    private static NodeAssignment part(final String node, final String leaf, final String spine, final int milli,
                                       final int... gpus) {
        final List<GpuAssignment> g = new ArrayList<>();
        for (final int i : gpus) {
            g.add(new GpuAssignment(node + "/gpu" + i, i, milli));
        }
        return NodeAssignment.newBuilder().setNodeId(node).setLeaf(leaf).setSpine(spine).setGpus(g).setRank(0).build();
    }
}
