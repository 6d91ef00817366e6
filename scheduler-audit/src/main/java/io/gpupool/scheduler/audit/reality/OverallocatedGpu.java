package io.gpupool.scheduler.audit.reality;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * A GPU on which running parts together held more than the whole GPU: the worst moment (the first
 * time the sum was highest), the parts running then, and the GPU-seconds over (the excess, in GPUs,
 * integrated over the time it lasted).
 */
public record OverallocatedGpu(String gpu, String nodeId, int worstMilli, long worstAtMs, List<RunningShare> parts,
                               double overGpuSeconds) {

    public OverallocatedGpu {
        parts = List.copyOf(parts);
    }

    public String describe() {
        return String.format(Locale.ROOT, "overallocated GPU %s on node %s: %d milli-GPU running at %s,"
                        + " %.3f GPU-seconds over; %s", gpu, nodeId, worstMilli, Moments.at(worstAtMs), overGpuSeconds,
                parts.stream().map(RunningShare::describe).collect(Collectors.joining("; ")));
    }
}
