package io.gpupool.scheduler.core;

import java.util.List;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TopologyShapesTest {

    @Test
    void realFabricNodesLandUnderTheirLeafAndSpine() {
        final List<NodeSpec> nodes = Pools.ibnetdiscoverNodes();
        assertEquals(List.of("o0001", "o0002", "p0001"), nodes.stream().map(NodeSpec::nodeId).toList());
        assertEquals("ib-i1l1s01", nodes.get(0).leaf());
        assertEquals("ib-i1l2s01", nodes.get(0).spine());
        assertEquals("ib-i4l1s01", nodes.get(2).leaf());
        assertTrue(nodes.get(0).hasInfiniband() && nodes.get(0).hasRoce());
    }

    @Test
    void gangOfTwoGoesToTheLeafThatHasTwoNodes() {
        final PoolEngine e = new PoolEngine(Pools.config(ScoringPolicy.BEST_FIT));
        Pools.ibnetdiscoverNodes().forEach(n -> e.apply(new EngineInput.NodeUpsert(0, n)));
        final EngineOutput out = e.apply(Pools.submit(1, JobSpec.builder("g").gang(2, 8).network(Network.INFINIBAND).build()));
        final Decision d = Pools.of(out, DecisionKind.PLACED).get(0);
        assertEquals(List.of("o0001", "o0002"), d.placement().stream().map(PlacementPart::nodeId).sorted().toList());
        assertEquals(2, Pools.of(out, DecisionKind.PLACED).get(0).placement().size());
        assertEquals(2, out.commands().size());
    }

    @Test
    void aSecondGangOfTwoWaitsWithTheLeafEvidence() {
        final PoolEngine e = new PoolEngine(Pools.config(ScoringPolicy.BEST_FIT));
        Pools.ibnetdiscoverNodes().forEach(n -> e.apply(new EngineInput.NodeUpsert(0, n)));
        e.apply(Pools.submit(1, JobSpec.builder("a").gang(1, 8).build()));
        final EngineOutput out = e.apply(Pools.submit(2, JobSpec.builder("g").gang(2, 8).build()));
        final Decision q = Pools.of(out, DecisionKind.QUEUED).get(0);
        assertEquals(ReasonCode.NO_LEAF_FOR_GANG, q.reason().code());
        assertTrue(q.reason().message().contains("needs 2 nodes x 8 GPUs on one leaf; leaf"), q.reason().message());
        assertTrue(q.reason().message().contains("has 1 node with 8 free, the others"), q.reason().message());
    }
}
