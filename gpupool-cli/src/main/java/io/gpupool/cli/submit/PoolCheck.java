package io.gpupool.cli.submit;

import io.gpupool.avro.JobRequest;
import io.gpupool.avro.NodeInventory;
import io.gpupool.scheduler.core.Decision;
import io.gpupool.scheduler.core.DecisionKind;
import io.gpupool.scheduler.core.EngineConfig;
import io.gpupool.scheduler.core.EngineInput;
import io.gpupool.scheduler.core.EngineOutput;
import io.gpupool.scheduler.core.PoolEngine;
import io.gpupool.scheduler.core.Reason;
import io.gpupool.scheduler.journal.InventoryMapper;
import io.gpupool.scheduler.journal.JobRequestMapper;
import java.util.Map;
import java.util.Optional;

/**
 * Whether a request can ever run in its pool, judged before it is sent by the scheduler's own engine: a
 * private engine is given the pool's inventory and the job, and its REJECTED answer (more GPUs on a node
 * than any node has, a model no node has, a gang larger than the pool, ...) is the refusal, in the words
 * the scheduler would use. Only what can never fit is refused; a job that has to wait is sent.
 */
final class PoolCheck {

    private PoolCheck() {
    }

    /** Why the job can never run in the pool, or empty when it can (some day). */
    static Optional<String> refusal(final String jobId, final JobRequest request, final PoolInventory inventory) {
        if (inventory.nodes().isEmpty()) {
            return Optional.of("pool '" + inventory.pool() + "' has no nodes"
                    + (inventory.otherPools().isEmpty() ? " (no collector has published an inventory yet)"
                    : "; the pools are " + String.join(", ", inventory.otherPools()) + ": give --pool NAME"));
        }
        final String invalid = JobRequestMapper.invalid(request);
        if (invalid != null) {
            return Optional.of(invalid);
        }
        final PoolEngine engine = new PoolEngine(EngineConfig.defaults(inventory.pool()));
        long t = 1;
        for (final NodeInventory n : inventory.nodes()) {
            try {
                engine.apply(new EngineInput.NodeUpsert(t++, InventoryMapper.toNodeSpec(n)));
            } catch (IllegalArgumentException e) {
                // an inventory the scheduler cannot take either (it dead-letters it): the node is not in the pool
            }
        }
        final EngineOutput out = engine.apply(new EngineInput.SubmitJob(t, JobRequestMapper.toSpec(jobId, request)));
        for (final Decision d : out.decisions()) {
            if (d.jobId().equals(jobId) && d.kind() == DecisionKind.REJECTED) {
                return Optional.of(text(d.reason(), inventory));
            }
        }
        return Optional.empty();
    }

    private static String text(final Reason r, final PoolInventory inventory) {
        final StringBuilder b = new StringBuilder(r.code().name()).append(": ").append(r.message())
                .append(" (pool ").append(inventory.pool()).append(": ").append(inventory.nodes().size()).append(" nodes");
        for (final Map.Entry<String, String> e : r.evidence().entrySet()) {
            b.append("; ").append(e.getKey()).append(' ').append(e.getValue());
        }
        return b.append(')').toString();
    }
}
