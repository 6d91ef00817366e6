package io.gpupool.simulator;

import io.gpupool.simulator.fgd.ArrivalOrder;
import io.gpupool.simulator.fgd.FgdProtocol;
import io.gpupool.simulator.fgd.FgdResult;
import io.gpupool.simulator.pool.PoolFactory;
import io.gpupool.simulator.progress.ProgressBar;
import io.gpupool.simulator.report.FgdReport;
import io.gpupool.simulator.trace.OpenbNode;
import io.gpupool.simulator.trace.OpenbNodeReader;
import io.gpupool.simulator.trace.OpenbPod;
import io.gpupool.simulator.trace.OpenbPodReader;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** Protocol 1 end to end: read the openb pod and node lists, run every policy over every seed, write the reports. */
public final class FgdSimulation {

    private FgdSimulation() {
    }

    /** Returns the headline lines ({@code policy=... alloc_pct_at_100=...}). */
    public static List<String> run(final PoolFactory engines, final Path podsFile, final Path nodesFile, final List<String> policies,
                                   final int seeds, final ArrivalOrder order, final int threads, final Map<String, String> engineOverrides,
                                   final Path out, final PrintStream progressOut) {
        if (seeds < 1) {
            throw new IllegalArgumentException("--seeds must be at least 1");
        }
        final List<OpenbPod> pods = OpenbPodReader.read(podsFile);
        final List<OpenbNode> nodes = OpenbNodeReader.read(nodesFile);
        final long gpus = nodes.stream().mapToLong(OpenbNode::gpuCount).sum();
        final long demand = pods.stream().mapToLong(OpenbPod::totalGpuMilli).sum();
        final ProgressBar progress = new ProgressBar(progressOut, "fgd " + policies.size() + " policies x " + seeds + " seeds", (long) policies.size() * seeds);
        final List<FgdResult> results = FgdProtocol.run(engines, policies, nodes, pods, seeds, order, threads, engineOverrides, progress);
        progress.finish();
        final String inputs = String.format(Locale.ROOT,
                "Inputs: pods `%s` (%d pods, GPU demand %.1f%% of cluster GPUs), nodes `%s` (%d nodes, %d GPUs); %d seeds (0..%d); arrival order %s.",
                podsFile.getFileName(), pods.size(), 100.0 * demand / (gpus * 1000.0), nodesFile.getFileName(), nodes.size(), gpus,
                seeds, seeds - 1, order.name().toLowerCase(Locale.ROOT))
                + (engineOverrides.isEmpty() ? "" : " Engine settings: " + new TreeMap<>(engineOverrides) + ".");
        final String note = "Protocol (FGD's simulator, Weng et al. ATC'23): per seed, the trace's pods are "
                + (order == ArrivalOrder.SHUFFLED ? "sorted by name and shuffled with the seed" : "kept in trace order")
                + ", then pods drawn with replacement from the trace are appended until the next draw would take arrived GPU demand"
                + " past 130% of the cluster's GPUs. Each pod arrives once, is placed on arrival by the engine (place-now-or-reject)"
                + " or fails, and never departs; CPU, memory, GPU count, GPU share (gpu_milli) and gpu_spec models must fit."
                + " Allocation = GPU milli placed / cluster GPU milli, read after the last pod that keeps arrived demand at or below"
                + " 100% (resp. 130%) of capacity.";
        FgdReport.write(out, results, inputs, note);
        return FgdReport.headlines(results);
    }
}
