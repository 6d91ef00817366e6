package io.gpupool.scheduler.core;

/** A placement the placer found: nodes (slots) and, per node, the GPUs and milli-GPU per GPU. */
final class Candidate {
    final int model;
    final int[] slots;
    final int[][] gpus;
    final int milli;
    final double score;
    final GangScope scope;

    Candidate(final int model, final int[] slots, final int[][] gpus, final int milli, final double score,
              final GangScope scope) {
        this.model = model;
        this.slots = slots;
        this.gpus = gpus;
        this.milli = milli;
        this.score = score;
        this.scope = scope;
    }
}
