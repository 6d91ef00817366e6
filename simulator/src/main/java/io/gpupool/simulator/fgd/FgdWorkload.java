package io.gpupool.simulator.fgd;

import io.gpupool.simulator.trace.OpenbPod;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

/**
 * Turns a pod list into one seeded arrival sequence the way FGD's simulator does ("workload
 * inflation"): order the pods, then, if their GPU demand is below the target, append pods drawn
 * with replacement from the trace until the next draw would push arrived demand past
 * {@code ratio} x cluster GPU capacity; if above, drop randomly chosen pods until it fits.
 */
public final class FgdWorkload {

    private FgdWorkload() {
    }

    public static List<OpenbPod> arrivals(
            final List<OpenbPod> trace, final long capacityMilli, final double ratio, final long seed, final ArrivalOrder order) {
        final Random random = new Random(seed);
        final List<OpenbPod> byName = new ArrayList<>(trace);
        byName.sort(Comparator.comparing(OpenbPod::name));
        final List<OpenbPod> sequence;
        if (order == ArrivalOrder.SHUFFLED) {
            sequence = new ArrayList<>(byName);
            Collections.shuffle(sequence, random);
        } else {
            sequence = new ArrayList<>(trace);
        }
        final double target = ratio * capacityMilli;
        long demand = sequence.stream().mapToLong(OpenbPod::totalGpuMilli).sum();
        if (demand > target) {
            while (demand > target && !sequence.isEmpty()) {
                demand -= sequence.remove(random.nextInt(sequence.size())).totalGpuMilli();
            }
            return List.copyOf(sequence);
        }
        if (byName.stream().noneMatch(pod -> pod.totalGpuMilli() > 0)) {
            return List.copyOf(sequence); // nothing can raise GPU demand
        }
        for (int copy = 0; ; copy++) {
            final OpenbPod drawn = byName.get(random.nextInt(byName.size()));
            if (demand + drawn.totalGpuMilli() > target) {
                break;
            }
            demand += drawn.totalGpuMilli();
            sequence.add(drawn.renamed(drawn.name() + "-tuned-" + copy));
        }
        return List.copyOf(sequence);
    }
}
