package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

import static io.gpupool.scheduler.core.Pools.submit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The seeded policies and tie-breaking: random, FGD's weighted best-fit, fgd's integer score. */
class ScoringPoliciesTest {

    private static EngineConfig config(final String policy, final long seed, final String... more) {
        final Map<String, String> s = new TreeMap<>();
        s.put("policy", policy);
        s.put("seed", Long.toString(seed));
        for (int i = 0; i < more.length; i += 2) {
            s.put(more[i], more[i + 1]);
        }
        return EngineConfig.fromSettings(s);
    }

    /** Eight identical nodes of 8 GPUs. */
    private static PoolEngine pool(final EngineConfig cfg) {
        final PoolEngine e = new PoolEngine(cfg);
        for (int i = 0; i < 8; i++) {
            e.apply(new EngineInput.NodeUpsert(0, NodeSpec.simple("n" + i, 64_000, 512_000, 8, "V100")));
        }
        return e;
    }

    /** Nodes the jobs j0..j{count-1} (1 GPU, or a share when milli < 1000) were placed on, in order. */
    private static List<String> place(final PoolEngine e, final int from, final int count, final int milli) {
        final List<String> nodes = new ArrayList<>();
        for (int i = from; i < from + count; i++) {
            final JobSpec.Builder b = JobSpec.builder("j" + i).gang(1, 1).cpuMilli(1_000).placeNowOrReject(true);
            if (milli < 1000) {
                b.gpuMilli(milli);
            }
            final Decision d = e.apply(submit(i + 1, b.build())).decisions().get(0);
            assertEquals(DecisionKind.PLACED, d.kind());
            nodes.add(d.placement().get(0).nodeId());
        }
        return nodes;
    }

    @Test
    void randomSpreadsJobsOverTheNodesWhereBestFitPacksThem() {
        final Set<String> random = new TreeSet<>(place(pool(config("random", 7)), 0, 16, 1000));
        final Set<String> packed = new TreeSet<>(place(pool(config("best-fit", 7)), 0, 16, 1000));
        assertEquals(2, packed.size());
        assertTrue(random.size() >= 5, "16 jobs drawn over 8 nodes land on most of them: " + random);
    }

    @Test
    void randomIsTheSameForTheSameSeedAndDiffersAcrossSeeds() {
        final List<String> a = place(pool(config("random", 1)), 0, 24, 1000);
        assertEquals(a, place(pool(config("random", 1)), 0, 24, 1000));
        assertNotEquals(a, place(pool(config("random", 2)), 0, 24, 1000));
        final List<String> shares = place(pool(config("random", 1)), 0, 24, 300);
        assertEquals(shares, place(pool(config("random", 1)), 0, 24, 300));
    }

    @Test
    void seededDrawsContinueExactlyAfterSnapshotAndRestore() {
        for (final String policy : List.of("random", "fgd", "best-fit")) {
            final EngineConfig cfg = config(policy, 42, "random-ties", "true", "best-fit-cpu-weight",
                    policy.equals("best-fit") ? "0.5" : "0");
            final PoolEngine straight = pool(cfg);
            place(straight, 0, 10, 500);
            final PoolEngine restored = PoolEngine.restore(straight.snapshot(), cfg);
            assertEquals(place(straight, 10, 20, 1000), place(restored, 10, 20, 1000), policy);
        }
    }

    @Test
    void randomTiesDrawAmongEquallyScoredNodesAndPoolOrderOtherwise() {
        final Set<String> first = new TreeSet<>();
        final Set<String> drawn = new TreeSet<>();
        for (long seed = 0; seed < 8; seed++) {
            first.add(place(pool(config("fgd", seed)), 0, 1, 1000).get(0));
            drawn.add(place(pool(config("fgd", seed, "random-ties", "true")), 0, 1, 1000).get(0));
            assertEquals(place(pool(config("fgd", seed, "random-ties", "true")), 0, 1, 1000),
                    place(pool(config("fgd", seed, "random-ties", "true")), 0, 1, 1000), "same seed, same node");
        }
        assertEquals(Set.of("n0"), first);
        assertTrue(drawn.size() > 1, "eight empty nodes tie; the seed picks one: " + drawn);
    }

    @Test
    void weightedBestFitScoresCpuAndGpuLeftAsAnIntegerOutOf100() {
        // Node a keeps more GPUs free but far less CPU: 0.5 x CPU left + 0.5 x GPU left (each over the largest
        // node's) is lower on a (0.47 against 0.54), while GPUs alone (the engine's plain best-fit) favour b.
        final Map<String, String> chosen = new TreeMap<>();
        for (final String weight : List.of("0.5", "0")) {
            final PoolEngine e = new PoolEngine(config("best-fit", 0, "best-fit-cpu-weight", weight));
            e.apply(new EngineInput.NodeUpsert(0, NodeSpec.simple("a", 10_000, 512_000, 8, "V100")));
            e.apply(new EngineInput.NodeUpsert(0, NodeSpec.simple("b", 96_000, 512_000, 2, "V100")));
            final Decision d = e.apply(submit(1, JobSpec.builder("x").gang(1, 1).cpuMilli(4_000).build())).decisions().get(0);
            chosen.put(weight, d.placement().get(0).nodeId());
        }
        assertEquals(Map.of("0.5", "a", "0", "b"), chosen);
        // the score is FGD's: int((1 - left) x 100), negated so that lower is better
        assertEquals(-100, BestFitPlacement.bestFitKey(0.0));
        assertEquals(-99, BestFitPlacement.bestFitKey(0.004));
        assertEquals(BestFitPlacement.bestFitKey(0.2501), BestFitPlacement.bestFitKey(0.2549), "within one point: a tie");
    }

    @Test
    void fgdIntegerScoreStillAvoidsStrandingGpusForTheMix() {
        // as PlacementRulesTest's exact-score case: a 4-core job on a (few cores left) strands a's GPUs for the
        // 8-core mix; FGD's integer score sees that too
        final PoolEngine e = new PoolEngine(config("fgd", 3, "fgd-integer-score", "true", "random-ties", "true"));
        e.apply(new EngineInput.NodeUpsert(0, NodeSpec.simple("a", 10_000, 256_000, 8, "V100")));
        e.apply(new EngineInput.NodeUpsert(0, NodeSpec.simple("b", 64_000, 256_000, 8, "V100")));
        for (int i = 0; i < 30; i++) {
            e.apply(submit(1, JobSpec.builder("m" + i).gang(1, 1).cpuMilli(8_000).memoryMib(999_999)
                    .placeNowOrReject(true).build()));
        }
        final Decision d = e.apply(submit(2, JobSpec.builder("x").gang(1, 1).cpuMilli(4_000).build())).decisions().get(0);
        assertEquals("b", d.placement().get(0).nodeId());
    }

    @Test
    void fgdPlacesASharedTaskOnTheGpuThatLeavesLeastFragment() {
        // Mix: 0.5-GPU tasks. A 0.5 share should go onto the half-used GPU (fragment stays 0), not open a whole one.
        final PoolEngine e = new PoolEngine(config("fgd", 0, "random-ties", "true", "fgd-integer-score", "true"));
        e.apply(new EngineInput.NodeUpsert(0, NodeSpec.simple("a", 64_000, 256_000, 2, "V100")));
        e.apply(new EngineInput.NodeUpsert(0, NodeSpec.simple("b", 64_000, 256_000, 2, "V100")));
        final List<String> nodes = place(e, 0, 2, 500);
        assertEquals(nodes.get(0), nodes.get(1), "the second half fills the first one's GPU");
    }

    @Test
    void popularityKeepsTheMostFrequentShapesUpToTheShare() {
        final JobSizeMix mix = new JobSizeMix(100, 90);
        for (int i = 0; i < 100; i++) {
            mix.arrived(JobSpec.builder("s" + i).gang(1, i < 80 ? 1 : i < 95 ? 2 : 4).build());
        }
        mix.refresh();
        assertEquals(2, mix.typical.length, "1- and 2-GPU shapes make up 95 of 100 arrivals, over 90 %");
        assertEquals(95, mix.totalWeight);
    }
}
