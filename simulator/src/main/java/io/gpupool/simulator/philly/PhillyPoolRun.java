package io.gpupool.simulator.philly;

import io.gpupool.simulator.pool.NodeLedger;
import io.gpupool.simulator.pool.Placement;
import io.gpupool.simulator.pool.PoolFactory;
import io.gpupool.simulator.pool.PoolOutcome;
import io.gpupool.simulator.pool.PoolSettings;
import io.gpupool.simulator.pool.SimJob;
import io.gpupool.simulator.pool.SimNode;
import io.gpupool.simulator.pool.SimulatedPool;
import io.gpupool.simulator.trace.PhillyJob;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeMap;

/**
 * Discrete-event simulation of one pool of 8-GPU nodes over Philly jobs in simulated time. At each
 * instant, completions are reported first (freeing GPUs, as Helios releases before it allocates),
 * then submissions in trace order. A placed job ends at start + its trace duration; the engine
 * learns of it only through the completion event, never through an estimate, unless the policy
 * is an explicit oracle baseline.
 */
public final class PhillyPoolRun {

    private final SimulatedPool pool;
    private final NodeLedger ledger = new NodeLedger();
    private final PhillyPolicy policy;
    private final Map<String, PhillyJob> byId = new HashMap<>();
    private final Map<String, SimJob> requests = new HashMap<>();
    private final Map<String, long[]> startEnd = new HashMap<>();
    private final PriorityQueue<long[]> completions = new PriorityQueue<>(
            (a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
    private final List<String> completionIds = new ArrayList<>();
    private final List<long[]> allocationChanges = new ArrayList<>();
    private final Set<String> rejected = new HashSet<>();

    private PhillyPoolRun(final SimulatedPool pool, final PhillyPolicy policy) {
        this.pool = pool;
        this.policy = policy;
    }

    /**
     * @param nodesByTenant 8-GPU nodes per tenant (one tenant for a per-VC pool)
     * @param onJobDone called once per finished or rejected job (progress)
     */
    public static PoolRunResult run(
            final PoolFactory engines, final PhillyPolicy policy, final String poolId,
            final Map<String, Integer> nodesByTenant, final List<PhillyJob> jobs, final Map<String, String> engineOverrides,
            final Runnable onJobDone) {
        final Map<String, Integer> quota = new HashMap<>();
        if (policy.sharedPool()) {
            nodesByTenant.forEach((tenant, nodes) -> quota.put(tenant, nodes * VirtualClusterSizes.GPUS_PER_NODE));
        }
        final SimulatedPool pool = engines.create(new PoolSettings(poolId, policy.enginePolicy(), 0, false, quota, engineOverrides));
        final PhillyPoolRun run = new PhillyPoolRun(pool, policy);
        int totalNodes = 0;
        for (Map.Entry<String, Integer> entry : new TreeMap<>(nodesByTenant).entrySet()) {
            for (int i = 0; i < entry.getValue(); i++) {
                final SimNode node = new SimNode(poolId + "/" + entry.getKey() + "-n" + i,
                        96_000, 1L << 20, VirtualClusterSizes.GPUS_PER_NODE, "philly");
                pool.addNode(node, jobs.isEmpty() ? 0 : jobs.get(0).submitSecond());
                run.ledger.addNode(node);
                totalNodes++;
            }
        }
        run.simulate(jobs, onJobDone);
        final List<JobResult> results = new ArrayList<>();
        for (PhillyJob job : jobs) {
            final long[] se = run.startEnd.get(job.id());
            results.add(se == null
                    ? new JobResult(job.id(), job.virtualCluster(), job.gpuCount(), job.submitSecond(), -1, -1, job.durationSeconds())
                    : new JobResult(job.id(), job.virtualCluster(), job.gpuCount(), job.submitSecond(), se[0], se[1], job.durationSeconds()));
        }
        return new PoolRunResult(poolId, totalNodes * VirtualClusterSizes.GPUS_PER_NODE, results, run.allocationChanges);
    }

    private void simulate(final List<PhillyJob> jobs, final Runnable onJobDone) {
        int next = 0;
        while (next < jobs.size() || !completions.isEmpty()) {
            final long nextSubmit = next < jobs.size() ? jobs.get(next).submitSecond() : Long.MAX_VALUE;
            final long nextEnd = completions.isEmpty() ? Long.MAX_VALUE : completions.peek()[0];
            final long now = Math.min(nextSubmit, nextEnd);
            while (!completions.isEmpty() && completions.peek()[0] == now) {
                final String jobId = completionIds.get((int) completions.poll()[1]);
                ledger.release(jobId);
                recordAllocation(now);
                onJobDone.run();
                apply(pool.complete(jobId, now), now, onJobDone);
            }
            while (next < jobs.size() && jobs.get(next).submitSecond() == now) {
                final PhillyJob job = jobs.get(next++);
                final SimJob request = requestFor(job);
                byId.put(job.id(), job);
                requests.put(job.id(), request);
                apply(pool.submit(request, now), now, onJobDone);
            }
            if (next >= jobs.size() && completions.isEmpty() && startEnd.size() + rejected.size() < jobs.size()) {
                // Nothing left to happen, yet jobs wait: let the engine see time pass once, then give up.
                apply(pool.tick(now + 1), now + 1, onJobDone);
                if (completions.isEmpty()) {
                    throw new IllegalStateException("pool " + (jobs.isEmpty() ? "" : jobs.get(0).virtualCluster())
                            + ": " + (jobs.size() - startEnd.size() - rejected.size())
                            + " jobs still queued on an idle pool; the engine neither placed nor rejected them");
                }
            }
        }
    }

    private SimJob requestFor(final PhillyJob job) {
        final JobShape shape = JobShape.of(job.gpuCount(), VirtualClusterSizes.GPUS_PER_NODE);
        if (policy.oracleRuntimes()) {
            // Oracle baseline only: the true duration as estimate, and shortest first as priority.
            final int shortestFirst = (int) -Math.min(Integer.MAX_VALUE, job.durationSeconds());
            return new SimJob(job.id(), sizeLabel(job), job.virtualCluster(), 0, 0, shape.nodes(), shape.gpusPerNode(), 1000, Set.of(),
                    shortestFirst, OptionalLong.of(job.durationSeconds()));
        }
        return new SimJob(job.id(), sizeLabel(job), job.virtualCluster(), 0, 0, shape.nodes(), shape.gpusPerNode(), 1000, Set.of(),
                0, OptionalLong.empty());
    }

    /**
     * The trace has no job names; the GPU count is what a submitter declares, so it labels the job
     * for the engine's learned estimates (per virtual cluster and size), never its duration.
     */
    private static String sizeLabel(final PhillyJob job) {
        return job.gpuCount() + "gpu";
    }

    private void apply(final PoolOutcome outcome, final long now, final Runnable onJobDone) {
        for (String jobId : outcome.evicted()) {
            // The engine requeues an evicted job; it will run again for its full duration.
            final long[] se = startEnd.remove(jobId);
            if (se == null) {
                throw new IllegalStateException("engine evicted job " + jobId + " which is not running");
            }
            completions.removeIf(c -> completionIds.get((int) c[1]).equals(jobId));
            ledger.release(jobId);
            recordAllocation(now);
        }
        for (Placement placement : outcome.placed()) {
            final PhillyJob job = byId.get(placement.jobId());
            if (job == null || startEnd.containsKey(job.id())) {
                throw new IllegalStateException("engine placed unknown or already started job " + placement.jobId());
            }
            ledger.place(requests.get(job.id()), placement);
            recordAllocation(now);
            final long end = now + job.durationSeconds();
            startEnd.put(job.id(), new long[] {now, end});
            completionIds.add(job.id());
            completions.add(new long[] {end, completionIds.size() - 1});
        }
        for (String jobId : outcome.rejected()) {
            if (byId.containsKey(jobId) && !startEnd.containsKey(jobId) && rejected.add(jobId)) {
                onJobDone.run();
            }
        }
    }

    private void recordAllocation(final long now) {
        final long gpus = ledger.gpuAllocatedMilli() / 1000;
        if (!allocationChanges.isEmpty() && allocationChanges.get(allocationChanges.size() - 1)[0] == now) {
            allocationChanges.get(allocationChanges.size() - 1)[1] = gpus;
        } else {
            allocationChanges.add(new long[] {now, gpus});
        }
    }
}
