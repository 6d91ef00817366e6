package io.gpupool.simulator.philly;

/**
 * How a Philly job of N GPUs becomes a gang on 8-GPU nodes, following Helios's consolidated
 * placement: up to 8 GPUs on one node; more as whole nodes; a count that is not a multiple of 8
 * as equal slices of the largest size that divides it (12 -> 2 x 6), since the engine places
 * gangs of equal slices.
 */
public record JobShape(int nodes, int gpusPerNode) {

    public static JobShape of(final int gpus, final int gpusPerNode) {
        if (gpus <= 0) {
            throw new IllegalArgumentException("a Philly job needs at least one GPU, got " + gpus);
        }
        if (gpus <= gpusPerNode) {
            return new JobShape(1, gpus);
        }
        for (int slice = gpusPerNode; slice >= 1; slice--) {
            if (gpus % slice == 0) {
                return new JobShape(gpus / slice, slice);
            }
        }
        throw new AssertionError("1 divides every count");
    }
}
