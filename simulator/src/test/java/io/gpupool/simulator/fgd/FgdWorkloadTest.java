package io.gpupool.simulator.fgd;

import io.gpupool.simulator.TestTraces;
import io.gpupool.simulator.trace.OpenbPod;
import io.gpupool.simulator.trace.OpenbPodReader;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class FgdWorkloadTest {

    private static final List<OpenbPod> TRACE = OpenbPodReader.read(TestTraces.path("openb_pod_list_slice.csv"));
    private static final long TRACE_DEMAND = TRACE.stream().mapToLong(OpenbPod::totalGpuMilli).sum();

    @Test
    void inflatesToJustBelowTheTargetWithRenamedCopies() {
        final long bigCluster = TRACE_DEMAND * 2;
        final List<OpenbPod> arrivals = FgdWorkload.arrivals(TRACE, bigCluster, 1.3, 7, ArrivalOrder.SHUFFLED);
        final long demand = arrivals.stream().mapToLong(OpenbPod::totalGpuMilli).sum();
        assertThat(demand).isLessThanOrEqualTo((long) (1.3 * bigCluster));
        // Stops only when the next draw would overshoot, so it is within one pod (8 GPUs) of the target.
        assertThat(demand).isGreaterThan((long) (1.3 * bigCluster) - 8000);
        assertThat(arrivals.subList(0, TRACE.size())).containsExactlyInAnyOrderElementsOf(TRACE);
        final Set<String> names = new HashSet<>();
        arrivals.forEach(p -> assertThat(names.add(p.name())).as("unique name %s", p.name()).isTrue());
    }

    @Test
    void dropsRandomPodsWhenTheTraceAloneExceedsTheTarget() {
        final long smallCluster = TRACE_DEMAND / 2;
        final List<OpenbPod> arrivals = FgdWorkload.arrivals(TRACE, smallCluster, 1.3, 3, ArrivalOrder.SHUFFLED);
        assertThat(arrivals.stream().mapToLong(OpenbPod::totalGpuMilli).sum()).isLessThanOrEqualTo((long) (1.3 * smallCluster));
        assertThat(TRACE).containsAll(arrivals);
    }

    @Test
    void sameSeedSameSequenceOtherSeedOtherSequence() {
        final long cluster = TRACE_DEMAND;
        assertThat(FgdWorkload.arrivals(TRACE, cluster, 1.3, 5, ArrivalOrder.SHUFFLED))
                .isEqualTo(FgdWorkload.arrivals(TRACE, cluster, 1.3, 5, ArrivalOrder.SHUFFLED))
                .isNotEqualTo(FgdWorkload.arrivals(TRACE, cluster, 1.3, 6, ArrivalOrder.SHUFFLED));
    }

    @Test
    void traceOrderKeepsTheTraceAsPrefix() {
        final List<OpenbPod> arrivals = FgdWorkload.arrivals(TRACE, TRACE_DEMAND, 1.3, 1, ArrivalOrder.TRACE);
        assertThat(arrivals.subList(0, TRACE.size())).containsExactlyElementsOf(TRACE);
        assertThat(arrivals.size()).isGreaterThan(TRACE.size());
    }
}
