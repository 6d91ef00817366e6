package io.gpupool.simulator.pool;

import java.util.List;

/**
 * What one engine input led to: jobs placed (possibly others than the one submitted, when a
 * completion frees room for queued jobs) and jobs rejected.
 */
public record PoolOutcome(List<Placement> placed, List<String> rejected) {

    public static final PoolOutcome NOTHING = new PoolOutcome(List.of(), List.of());

    public PoolOutcome {
        placed = List.copyOf(placed);
        rejected = List.copyOf(rejected);
    }
}
