package io.gpupool.simulator.fgd;

import java.util.List;

/** All seeds of one policy under the FGD protocol, with the mean headline figures. */
public record FgdResult(String policy, List<FgdSeries> seeds) {

    public FgdResult {
        seeds = List.copyOf(seeds);
    }

    public double meanAllocatedPctAt(final double arrivedPct) {
        return seeds.stream().mapToDouble(s -> s.allocatedPctAt(arrivedPct)).average().orElse(Double.NaN);
    }

    public double minAllocatedPctAt(final double arrivedPct) {
        return seeds.stream().mapToDouble(s -> s.allocatedPctAt(arrivedPct)).min().orElse(Double.NaN);
    }

    public double maxAllocatedPctAt(final double arrivedPct) {
        return seeds.stream().mapToDouble(s -> s.allocatedPctAt(arrivedPct)).max().orElse(Double.NaN);
    }

    /** Mean over seeds of the engine's FGD fragmentation rate (percent of free GPU capacity) at a whole arrived percent. */
    public double meanFragmentationRatePctAt(final int arrivedPct) {
        return seeds.stream().mapToDouble(s -> arrivedPct < s.fragmentationRateByPct().length ? s.fragmentationRateByPct()[arrivedPct] : Double.NaN)
                .filter(v -> !Double.isNaN(v)).map(v -> 100 * v).average().orElse(Double.NaN);
    }

    /** Mean over seeds of the free GPU share (percent of capacity) stranded on partly used nodes. */
    public double meanFragmentedPctAt(final double arrivedPct) {
        return seeds.stream().mapToDouble(s -> s.fragmentedPctAt(arrivedPct)).average().orElse(Double.NaN);
    }
}
