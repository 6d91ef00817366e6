package io.gpupool.simulator.pool;

/**
 * The simulator's view of one pool: a thin port over the real placement engine
 * (scheduler-stream core). Implementations translate, they never decide placement or order.
 * Time is simulated seconds, passed in with every input, as the engine takes journal time.
 */
public interface SimulatedPool {

    void addNode(SimNode node, long nowSecond);

    /** Submits a job; the outcome lists every placement and rejection it caused. */
    PoolOutcome submit(SimJob job, long nowSecond);

    /** Reports that a running job finished; queued jobs may be placed as a result. */
    PoolOutcome complete(String jobId, long nowSecond);

    /**
     * The engine's own fragmentation measure (FGD's): the share of free GPU capacity, 0..1, that
     * the recent job mix cannot use.
     */
    double fragmentationRate();

    /** Lets simulated time advance to {@code nowSecond} (timeouts, deadlines, retries). */
    PoolOutcome tick(long nowSecond);
}
