package io.gpupool.simulator.philly;

import io.gpupool.simulator.trace.CsvFile;
import io.gpupool.simulator.trace.PhillyJob;
import io.gpupool.simulator.trace.TraceFormatException;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * How many 8-GPU nodes each Philly virtual cluster gets.
 *
 * <p>Default: the node counts the Helios artifact (Hu et al., SC'21, HeliosArtifact
 * framework/QSSF Service/data/philly_vc.csv) used for this very window, so that our FIFO
 * baseline is comparable with their published numbers. A virtual cluster absent from that table
 * (another trace, or the few Helios dropped) is sized from its own demand: enough whole nodes
 * for its largest job and for its mean GPU demand over the window at {@value #FALLBACK_LOAD}
 * load, rounded up to a power of two as Philly's VCs are. A {@code vc,node num} CSV replaces
 * the table.
 */
public final class VirtualClusterSizes {

    public static final int GPUS_PER_NODE = 8;
    static final double FALLBACK_LOAD = 0.7;

    /** Helios's Philly VC sizes, in 8-GPU nodes. */
    static final Map<String, Integer> HELIOS_PHILLY = Map.ofEntries(
            Map.entry("6214e9", 64), Map.entry("7f04ca", 32), Map.entry("11cb48", 16), Map.entry("b436b2", 64),
            Map.entry("ee9e8c", 64), Map.entry("e13805", 16), Map.entry("6c71a0", 32), Map.entry("2869ce", 16),
            Map.entry("ed69ec", 8), Map.entry("103959", 8), Map.entry("0e4a51", 32));

    private VirtualClusterSizes() {
    }

    /** Node counts for every VC in {@code jobs}, with where each number came from. */
    public static Map<String, Sizing> choose(final List<PhillyJob> jobs, final Map<String, Integer> table, final String tableName) {
        final Map<String, Sizing> sizes = new LinkedHashMap<>();
        final TreeSet<String> vcs = new TreeSet<>();
        jobs.forEach(job -> vcs.add(job.virtualCluster()));
        if (jobs.isEmpty()) {
            return sizes;
        }
        final long first = jobs.stream().mapToLong(PhillyJob::submitSecond).min().orElseThrow();
        final long last = jobs.stream().mapToLong(PhillyJob::submitSecond).max().orElseThrow();
        final double window = Math.max(1, last - first);
        for (String vc : vcs) {
            final int largestJob = jobs.stream().filter(j -> j.virtualCluster().equals(vc)).mapToInt(PhillyJob::gpuCount).max().orElse(1);
            final Integer fromTable = table.get(vc);
            if (fromTable != null && fromTable * GPUS_PER_NODE >= largestJob) {
                sizes.put(vc, new Sizing(fromTable, tableName));
                continue;
            }
            final double gpuSeconds = jobs.stream().filter(j -> j.virtualCluster().equals(vc))
                    .mapToDouble(j -> (double) j.gpuCount() * j.durationSeconds()).sum();
            final int forLoad = (int) Math.ceil(gpuSeconds / window / FALLBACK_LOAD / GPUS_PER_NODE);
            final int forLargest = (largestJob + GPUS_PER_NODE - 1) / GPUS_PER_NODE;
            final int nodes = Integer.highestOneBit(Math.max(1, Math.max(forLoad, forLargest)) * 2 - 1);
            sizes.put(vc, new Sizing(nodes, fromTable == null ? "demand" : "demand (table too small for largest job)"));
        }
        return sizes;
    }

    /**
     * Offered load of the VCs' jobs on {@code gpus} GPUs: their GPU-seconds over GPU capacity
     * across the submission window. Tells how hard a sizing makes the queueing problem.
     */
    public static double offeredLoad(final List<PhillyJob> jobs, final long gpus) {
        if (jobs.isEmpty() || gpus <= 0) {
            return 0;
        }
        final long first = jobs.stream().mapToLong(PhillyJob::submitSecond).min().orElseThrow();
        final long last = jobs.stream().mapToLong(PhillyJob::submitSecond).max().orElseThrow();
        final double gpuSeconds = jobs.stream().mapToDouble(j -> (double) j.gpuCount() * j.durationSeconds()).sum();
        return gpuSeconds / ((double) gpus * Math.max(1, last - first));
    }

    public static Map<String, Integer> heliosPhilly() {
        return new TreeMap<>(HELIOS_PHILLY);
    }

    /** Reads a {@code vc,node num} table (Helios's own format). */
    public static Map<String, Integer> read(final Path file) {
        final Map<String, Integer> table = new TreeMap<>();
        CsvFile.forEachRow(file, List.of("vc", "node num"), row -> {
            final long nodes = row.requiredLong("node num");
            if (nodes <= 0 || nodes > 1_000_000) {
                throw row.error("node num must be positive, was " + nodes);
            }
            if (table.put(row.requiredText("vc"), (int) nodes) != null) {
                throw row.error("virtual cluster listed twice");
            }
        });
        if (table.isEmpty()) {
            throw new TraceFormatException(file, "no virtual clusters");
        }
        return table;
    }

    /** A VC's node count and its provenance ("Helios" table, a file, or "demand"). */
    public record Sizing(int nodes, String source) {
    }
}
