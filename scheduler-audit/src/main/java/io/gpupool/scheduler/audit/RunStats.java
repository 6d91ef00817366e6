package io.gpupool.scheduler.audit;

import io.gpupool.scheduler.core.ModelCapacity;
import io.gpupool.scheduler.core.PoolEngine;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The figures a what-if compares, for one run of a history: per job times (queueing delay, JCT),
 * preemptions, and time-weighted allocation and fragmentation sampled after each entry that changed
 * an allocation.
 */
public final class RunStats {
    /** One sample: at {@code ms}, GPUs allocated (milli / 1000) of the allocatable ones, and fragmentation. */
    public record Sample(long ms, double allocatedGpus, long allocatableGpus, double fragmentation) {
    }

    private final String label;
    private final List<JobTimes> jobs;
    private final List<Sample> samples;

    /** @param samples in time order */
    public RunStats(final String label, final List<JobTimes> jobs, final List<Sample> samples) {
        this.label = label;
        this.jobs = List.copyOf(jobs);
        this.samples = List.copyOf(samples);
    }

    static Sample sample(final long ms, final Map<String, PoolEngine> engines) {
        double allocated = 0;
        long allocatable = 0;
        double fragWeighted = 0;
        for (final PoolEngine e : engines.values()) {
            long poolAllocatable = 0;
            for (final ModelCapacity c : e.capacity().byModel().values()) {
                allocated += c.allocatedMilli() / 1000.0;
                poolAllocatable += c.allocatable();
            }
            allocatable += poolAllocatable;
            fragWeighted += e.fragmentation() * poolAllocatable;
        }
        return new Sample(ms, allocated, allocatable, allocatable == 0 ? 0 : fragWeighted / allocatable);
    }

    public String label() {
        return label;
    }

    public List<JobTimes> jobs() {
        return jobs;
    }

    public List<Sample> samples() {
        return samples;
    }

    /** The comparison figures, by name, in a fixed order. */
    public Map<String, Double> figures() {
        final Map<String, Double> f = new LinkedHashMap<>();
        final long[] delays = jobs.stream().mapToLong(JobTimes::queueDelayMs).filter(d -> d >= 0).sorted().toArray();
        final long[] jcts = jobs.stream().mapToLong(JobTimes::jctMs).filter(d -> d >= 0).sorted().toArray();
        f.put("jobs", (double) jobs.size());
        f.put("jobs_started", (double) delays.length);
        f.put("jobs_completed", (double) jcts.length);
        f.put("queue_delay_mean_s", mean(delays) / 1000);
        f.put("queue_delay_p95_s", pct(delays, 0.95) / 1000);
        f.put("jct_mean_s", mean(jcts) / 1000);
        f.put("jct_p95_s", pct(jcts, 0.95) / 1000);
        f.put("allocation_pct", 100 * weighted(true));
        f.put("fragmentation_mean", weighted(false));
        f.put("preemptions", (double) jobs.stream().mapToInt(JobTimes::preemptions).sum());
        return f;
    }

    private double weighted(final boolean allocation) {
        if (samples.size() < 2) {
            return 0;
        }
        double sum = 0;
        double span = 0;
        for (int i = 0; i + 1 < samples.size(); i++) {
            final Sample s = samples.get(i);
            final double dt = samples.get(i + 1).ms() - s.ms();
            final double v = allocation ? (s.allocatableGpus() == 0 ? 0 : s.allocatedGpus() / s.allocatableGpus())
                    : s.fragmentation();
            sum += v * dt;
            span += dt;
        }
        return span == 0 ? 0 : sum / span;
    }

    private static double mean(final long[] v) {
        return v.length == 0 ? 0 : Arrays.stream(v).average().orElse(0);
    }

    private static double pct(final long[] sorted, final double p) {
        return sorted.length == 0 ? 0 : sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
    }

    static List<Sample> newSeries() {
        return new ArrayList<>();
    }
}
