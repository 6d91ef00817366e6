package io.gpupool.simulator.philly;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** One policy over the whole Philly window: every job's outcome and the pools' allocation over time. */
public record PhillyResult(PhillyPolicy policy, List<JobResult> jobs, List<PoolRunResult> pools) {

    public PhillyResult {
        jobs = List.copyOf(jobs);
        pools = List.copyOf(pools);
    }

    public List<JobResult> finished() {
        return jobs.stream().filter(j -> !j.rejected()).toList();
    }

    public long rejectedCount() {
        return jobs.stream().filter(JobResult::rejected).count();
    }

    public double averageJctSeconds() {
        return finished().stream().mapToLong(JobResult::completionSeconds).average().orElse(Double.NaN);
    }

    public double averageQueueingSeconds() {
        return finished().stream().mapToLong(JobResult::queueingSeconds).average().orElse(Double.NaN);
    }

    public double queueingQuantileSeconds(final double q) {
        final long[] sorted = finished().stream().mapToLong(JobResult::queueingSeconds).sorted().toArray();
        return sorted.length == 0 ? Double.NaN : sorted[(int) Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
    }

    public int totalGpus() {
        return pools.stream().mapToInt(PoolRunResult::totalGpus).sum();
    }

    /**
     * Allocated share of all pools' GPUs (0..1) sampled every {@code stepSeconds} from {@code from}
     * to {@code until}: each pool's step function summed.
     */
    public double[] utilisation(final long from, final long until, final long stepSeconds) {
        final int samples = (int) ((until - from) / stepSeconds) + 1;
        final double[] allocated = new double[samples];
        for (PoolRunResult pool : pools) {
            final List<long[]> changes = new ArrayList<>(pool.allocationChanges());
            int c = 0;
            long current = 0;
            for (int s = 0; s < samples; s++) {
                final long t = from + s * stepSeconds;
                while (c < changes.size() && changes.get(c)[0] <= t) {
                    current = changes.get(c++)[1];
                }
                allocated[s] += current;
            }
        }
        final int total = totalGpus();
        return Arrays.stream(allocated).map(a -> total == 0 ? 0 : a / total).toArray();
    }
}
