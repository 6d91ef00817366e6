package io.gpupool.simulator.fgd;

/** In which order the trace's pods arrive before the workload is inflated. */
public enum ArrivalOrder {
    /** FGD's published runs: pods sorted by name, then shuffled with the seed. */
    SHUFFLED,
    /** The trace's own order (creation time as written); the seed then only picks the inflation pods. */
    TRACE
}
