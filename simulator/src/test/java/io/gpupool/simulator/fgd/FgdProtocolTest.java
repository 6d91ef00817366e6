package io.gpupool.simulator.fgd;

import io.gpupool.simulator.TestTraces;
import io.gpupool.simulator.pool.EnginePool;
import io.gpupool.simulator.progress.ProgressBar;
import io.gpupool.simulator.trace.OpenbNode;
import io.gpupool.simulator.trace.OpenbNodeReader;
import io.gpupool.simulator.trace.OpenbPod;
import io.gpupool.simulator.trace.OpenbPodReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Protocol invariants of FGD runs over the real trace slices, with the real engine. */
class FgdProtocolTest {

    private static final List<OpenbNode> NODES = OpenbNodeReader.read(TestTraces.path("openb_node_list_slice.csv"));
    private static final List<OpenbPod> PODS = OpenbPodReader.read(TestTraces.path("openb_pod_list_slice.csv"));
    private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());

    private static List<FgdResult> run(final List<String> policies, final int seeds, final List<OpenbPod> pods) {
        return FgdProtocol.run(EnginePool::new, policies, NODES, pods, seeds, ArrivalOrder.SHUFFLED, 2, Map.of(),
                new ProgressBar(QUIET, "test", (long) policies.size() * seeds));
    }

    @Test
    void everyPodIsPlacedOrFailedAndAllocationNeverExceedsCapacityOrDemand() {
        final Map<String, OpenbNode> nodes = NODES.stream().collect(Collectors.toMap(OpenbNode::name, Function.identity()));
        for (FgdResult result : run(List.of("first-fit", "best-fit", "tight-fit", "fgd", "random"), 2, PODS)) {
            for (FgdSeries s : result.seeds()) {
                assertThat(s.capacityMilli()).isEqualTo(NODES.stream().mapToLong(OpenbNode::gpuMilliCapacity).sum());
                long previousArrived = 0;
                long previousAllocated = 0;
                for (int i = 0; i < s.pods(); i++) {
                    assertThat(s.arrivedMilli()[i]).isEqualTo(previousArrived + s.podGpuMilli()[i]);
                    final long expected = previousAllocated + (s.placedNode()[i] == null ? 0 : s.podGpuMilli()[i]);
                    assertThat(s.allocatedMilli()[i]).as("pod %d placed or failed, nothing else", i).isEqualTo(expected);
                    assertThat(s.allocatedMilli()[i]).isLessThanOrEqualTo(s.capacityMilli()).isLessThanOrEqualTo(s.arrivedMilli()[i]);
                    if (s.placedNode()[i] != null) {
                        assertThat(nodes).containsKey(s.placedNode()[i]);
                    }
                    previousArrived = s.arrivedMilli()[i];
                    previousAllocated = s.allocatedMilli()[i];
                }
                assertThat(s.finalArrivedPct()).isLessThanOrEqualTo(130.0).isGreaterThan(100.0);
                assertThat(s.failedPods()).as("a 130%% workload cannot all fit").isPositive();
                assertThat(s.allocatedPctAt(130)).isGreaterThanOrEqualTo(s.allocatedPctAt(100));
            }
        }
    }

    @Test
    void sameSeedGivesTheSameRunOtherSeedsOtherArrivals() {
        final FgdSeries a = run(List.of("fgd"), 2, PODS).get(0).seeds().get(1);
        final FgdSeries b = run(List.of("fgd"), 2, PODS).get(0).seeds().get(1);
        assertThat(b.podNames()).containsExactly(a.podNames());
        assertThat(b.placedNode()).containsExactly(a.placedNode());
        assertThat(b.allocatedMilli()).containsExactly(a.allocatedMilli());
        final FgdSeries other = run(List.of("fgd"), 1, PODS).get(0).seeds().get(0);
        assertThat(other.podNames()).isNotEqualTo(a.podNames());
    }

    @Test
    void seededPoliciesRepeatExactlyForTheSameSeed() {
        final List<String> seeded = List.of("random", "best-fit", "fgd");
        final List<FgdResult> a = run(seeded, 2, PODS);
        final List<FgdResult> b = run(seeded, 2, PODS);
        for (int p = 0; p < seeded.size(); p++) {
            for (int seed = 0; seed < 2; seed++) {
                assertThat(b.get(p).seeds().get(seed).placedNode()).as(seeded.get(p))
                        .containsExactly(a.get(p).seeds().get(seed).placedNode());
            }
        }
        assertThat(a.get(0).seeds().get(0).placedNode()).as("random places differently from best-fit")
                .isNotEqualTo(a.get(1).seeds().get(0).placedNode());
    }

    @Test
    void gpuSpecPodsLandOnlyOnAllowedModels() {
        final List<OpenbPod> spec = OpenbPodReader.read(TestTraces.path("openb_pod_list_gpuspec_synthetic.csv"));
        final Map<String, OpenbNode> nodes = NODES.stream().collect(Collectors.toMap(OpenbNode::name, Function.identity()));
        final Map<String, OpenbPod> byName = spec.stream().collect(Collectors.toMap(OpenbPod::name, Function.identity()));
        for (FgdResult result : run(List.of("best-fit", "fgd"), 2, spec)) {
            for (FgdSeries s : result.seeds()) {
                int placedWithSpec = 0;
                for (int i = 0; i < s.pods(); i++) {
                    final OpenbPod pod = byName.get(s.podNames()[i].replaceAll("-tuned-\\d+$", ""));
                    if (s.placedNode()[i] != null && pod.gpuCount() > 0 && !pod.allowedGpuModels().isEmpty()) {
                        assertThat(pod.allowedGpuModels()).contains(nodes.get(s.placedNode()[i]).gpuModel());
                        placedWithSpec++;
                    }
                }
                assertThat(placedWithSpec).isPositive();
            }
        }
    }
}
