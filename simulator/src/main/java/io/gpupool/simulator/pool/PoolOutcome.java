package io.gpupool.simulator.pool;

import java.util.List;

/**
 * What one engine input led to, in the engine's order: jobs placed (possibly others than the one
 * submitted, when a completion frees room for queued jobs), jobs rejected, and running jobs the
 * engine evicted (it requeues them itself).
 */
public record PoolOutcome(List<Placement> placed, List<String> rejected, List<String> evicted) {

    public static final PoolOutcome NOTHING = new PoolOutcome(List.of(), List.of(), List.of());

    public PoolOutcome {
        placed = List.copyOf(placed);
        rejected = List.copyOf(rejected);
        evicted = List.copyOf(evicted);
    }
}
