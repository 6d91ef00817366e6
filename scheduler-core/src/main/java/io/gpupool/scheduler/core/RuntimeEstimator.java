package io.gpupool.scheduler.core;

import java.util.Arrays;
import java.util.IdentityHashMap;
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

    /**
     * tenant -> job name -> ring of recent runtimes (slot 0 holds the count written so far); the
     * name "" collects all of the tenant's jobs.
     */
    final TreeMap<String, TreeMap<String, long[]>> samples = new TreeMap<>();
    /** Quantile per ring, dropped when the ring changes: a pure cache, never iterated nor stored. */
    private final IdentityHashMap<long[], Long> cache = new IdentityHashMap<>();

    void finished(final JobSpec job, final long runtimeMs) {
        if (runtimeMs <= 0) {
            return;
        }
        final TreeMap<String, long[]> t = samples.computeIfAbsent(job.tenant(), k -> new TreeMap<>());
        add(t, job.name(), runtimeMs);
        if (!job.name().isEmpty()) {
            add(t, "", runtimeMs);
        }
    }

    private void add(final TreeMap<String, long[]> t, final String key, final long v) {
        final long[] r = t.computeIfAbsent(key, k -> new long[KEEP + 1]);
        cache.remove(r);
        r[1 + (int) (r[0] % KEEP)] = v;
        r[0]++;
    }

    /** The request's estimate, else the learned one, else {@code defaultMs}. */
    long estimate(final JobSpec job, final long defaultMs) {
        if (job.runtimeEstimateMs() > 0) {
            return job.runtimeEstimateMs();
        }
        final TreeMap<String, long[]> t = samples.get(job.tenant());
        if (t == null) {
            return defaultMs;
        }
        long e = quantile(t.get(job.name()));
        if (e < 0) {
            e = quantile(t.get(""));
        }
        return e < 0 ? defaultMs : e;
    }

    /** The least estimate a job that asks for none can get: bounds what backfill may still let through. */
    long leastLearned(final long defaultMs) {
        long least = defaultMs;
        for (final TreeMap<String, long[]> t : samples.values()) {
            for (final long[] r : t.values()) {
                final long q = quantile(r);
                if (q >= 0) {
                    least = Math.min(least, q);
                }
            }
        }
        return least;
    }

    private long quantile(final long[] r) {
        if (r == null || r[0] < MIN_SAMPLES) {
            return -1;
        }
        final Long cached = cache.get(r);
        if (cached != null) {
            return cached;
        }
        final long q = computeQuantile(r);
        cache.put(r, q);
        return q;
    }

    private static long computeQuantile(final long[] r) {
        final int n = (int) Math.min(r[0], KEEP);
        final long[] v = Arrays.copyOfRange(r, 1, 1 + n);
        Arrays.sort(v);
        return v[Math.min(n - 1, (int) Math.ceil(QUANTILE * n) - 1)];
    }
}
