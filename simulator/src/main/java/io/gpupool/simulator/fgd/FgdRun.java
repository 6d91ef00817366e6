package io.gpupool.simulator.fgd;

import io.gpupool.simulator.pool.NodeLedger;
import io.gpupool.simulator.pool.Placement;
import io.gpupool.simulator.pool.PoolFactory;
import io.gpupool.simulator.pool.PoolOutcome;
import io.gpupool.simulator.pool.PoolSettings;
import io.gpupool.simulator.pool.SimJob;
import io.gpupool.simulator.pool.SimNode;
import io.gpupool.simulator.pool.SimulatedPool;
import io.gpupool.simulator.trace.OpenbNode;
import io.gpupool.simulator.trace.OpenbPod;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * One FGD-protocol run: a fresh engine in place-now-or-reject mode, the nodes, then the pods in
 * arrival order, one per simulated second, never departing. Each pod is placed or fails on
 * arrival; the run records arrived demand and allocation after every pod.
 */
public final class FgdRun {

    static final String TENANT = "openb";
    /** Highest arrived-demand percent sampled for the fragmentation curve. */
    public static final int MAX_PCT = 130;

    private FgdRun() {
    }

    public static FgdSeries run(
            final PoolFactory engines, final String policy, final long seed,
            final List<OpenbNode> nodes, final List<OpenbPod> arrivals, final Map<String, String> engineOverrides) {
        final SimulatedPool pool = engines.create(new PoolSettings("openb", policy, seed, true, Map.of(), engineOverrides));
        final NodeLedger ledger = new NodeLedger();
        for (OpenbNode node : nodes) {
            final SimNode simNode = new SimNode(node.name(), node.cpuMilli(), node.memoryMib(), node.gpuCount(), node.gpuModel());
            pool.addNode(simNode, 0);
            ledger.addNode(simNode);
        }
        final int n = arrivals.size();
        final String[] names = new String[n];
        final long[] demand = new long[n];
        final long[] arrived = new long[n];
        final long[] allocated = new long[n];
        final long[] fragmented = new long[n];
        final String[] placedOn = new String[n];
        final double[] fragmentationRate = new double[MAX_PCT + 1];
        Arrays.fill(fragmentationRate, Double.NaN);
        int nextPct = 0;
        long arrivedSoFar = 0;
        for (int i = 0; i < n; i++) {
            final OpenbPod pod = arrivals.get(i);
            final SimJob job = jobOf(pod);
            final PoolOutcome outcome = pool.submit(job, i + 1L);
            placedOn[i] = outcomeFor(job, outcome, ledger);
            arrivedSoFar += pod.totalGpuMilli();
            names[i] = pod.name();
            demand[i] = pod.totalGpuMilli();
            arrived[i] = arrivedSoFar;
            allocated[i] = ledger.gpuAllocatedMilli();
            fragmented[i] = ledger.fragmentedFreeGpuMilli();
            // The engine's measure costs a pass over all nodes: sample it once per percent of arrived demand.
            final long reachedPct = Math.min(MAX_PCT, arrivedSoFar * 100 / Math.max(1, ledger.gpuCapacityMilli()));
            if (reachedPct >= nextPct) {
                final double rate = pool.fragmentationRate();
                for (; nextPct <= reachedPct; nextPct++) {
                    fragmentationRate[nextPct] = rate;
                }
            }
        }
        return new FgdSeries(policy, seed, ledger.gpuCapacityMilli(), names, demand, arrived, allocated, fragmented, placedOn,
                fragmentationRate);
    }

    static SimJob jobOf(final OpenbPod pod) {
        return new SimJob(pod.name(), "", TENANT, pod.cpuMilli(), pod.memoryMib(), 1,
                pod.gpuCount(), pod.gpuMilliPerGpu(), pod.allowedGpuModels(), 0, OptionalLong.empty());
    }

    /** The node the pod went to, or null if it failed; anything else from the engine is a protocol breach. */
    private static String outcomeFor(final SimJob job, final PoolOutcome outcome, final NodeLedger ledger) {
        final boolean rejected = outcome.rejected().contains(job.id());
        final List<Placement> placed = outcome.placed();
        if (placed.size() > 1 || (placed.size() == 1 && !placed.get(0).jobId().equals(job.id()))) {
            throw new IllegalStateException("place-now-or-reject engine placed other jobs than " + job.id() + ": " + placed);
        }
        if (!outcome.evicted().isEmpty()) {
            throw new IllegalStateException("FGD protocol has no departures, yet the engine evicted " + outcome.evicted());
        }
        if (placed.isEmpty() == !rejected) {
            throw new IllegalStateException("pod " + job.id() + " must be either placed or rejected on arrival, engine said " + outcome);
        }
        if (rejected) {
            return null;
        }
        ledger.place(job, placed.get(0));
        return placed.get(0).nodeIds().get(0);
    }
}
