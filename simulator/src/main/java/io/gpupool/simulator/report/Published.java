package io.gpupool.simulator.report;

import java.util.Map;

/** Published results on the same traces, shown side by side with ours (see shared/data/SOURCES.md). */
public final class Published {

    /** FGD paper (Weng et al., USENIX ATC'23), default openb trace: % GPUs allocated at 100% / 130% arrived, mean of 10 seeds. */
    public static final Map<String, double[]> FGD_ALLOC_PCT = Map.of(
            "random", new double[] {86.3, 87.5},
            "dot-product", new double[] {90.6, 90.9},
            "gpu-clustering", new double[] {91.7, 91.9},
            "gpu-packing", new double[] {91.8, 92.0},
            "best-fit", new double[] {92.9, 93.1},
            "fgd", new double[] {95.2, 95.4});

    /** Helios artifact (Hu et al., SC'21), Philly 2017-10-01..11-30: average JCT and queueing delay, seconds. */
    public static final Map<String, double[]> HELIOS_PHILLY_S = Map.of(
            "fifo", new double[] {86_072, 56_531},
            "sjf", new double[] {34_272, 4_731},
            "qssf", new double[] {37_324, 7_783});

    /** The real Philly scheduler over the whole trace (Jeon et al., ATC'19, via Helios): average queueing delay, seconds. */
    public static final double PHILLY_REAL_AVG_QUEUE_S = 3_761;

    private Published() {
    }
}
