package io.gpupool.scheduler.core;

import java.util.Arrays;
import java.util.TreeMap;

/**
 * Learns runtimes of finished jobs per tenant and job name, and per tenant, and estimates a new
 * job's runtime as a high quantile of the recent ones (robust to a few outliers, and on the long
 * side so that backfill rarely overruns a reservation).
 */
final class RuntimeEstimator {
    static final int KEEP = 32;
    static final double QUANTILE = 0.8;
    /** Fewer samples than this and the key is not trusted. */
    static final int MIN_SAMPLES = 3;

    /** key -> ring of recent runtimes; slot 0 holds the count written so far. */
    final TreeMap<String, long[]> samples = new TreeMap<>();

    void finished(final JobSpec job, final long runtimeMs) {
        if (runtimeMs <= 0) {
            return;
        }
        add(job.tenant() + "/" + job.name(), runtimeMs);
        add(job.tenant() + "/", runtimeMs);
    }

    private void add(final String key, final long v) {
        final long[] r = samples.computeIfAbsent(key, k -> new long[KEEP + 1]);
        r[1 + (int) (r[0] % KEEP)] = v;
        r[0]++;
    }

    /** The request's estimate, else the learned one, else {@code defaultMs}. */
    long estimate(final JobSpec job, final long defaultMs) {
        if (job.runtimeEstimateMs() > 0) {
            return job.runtimeEstimateMs();
        }
        long e = quantile(job.tenant() + "/" + job.name());
        if (e < 0) {
            e = quantile(job.tenant() + "/");
        }
        return e < 0 ? defaultMs : e;
    }

    private long quantile(final String key) {
        final long[] r = samples.get(key);
        if (r == null || r[0] < MIN_SAMPLES) {
            return -1;
        }
        final int n = (int) Math.min(r[0], KEEP);
        final long[] v = Arrays.copyOfRange(r, 1, 1 + n);
        Arrays.sort(v);
        return v[Math.min(n - 1, (int) Math.ceil(QUANTILE * n) - 1)];
    }
}
