package io.gpupool.simulator.philly;

import io.gpupool.simulator.pool.PoolFactory;
import io.gpupool.simulator.progress.ProgressBar;
import io.gpupool.simulator.trace.PhillyJob;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Protocol 2 (Helios, Hu et al., SC'21, on Philly): each virtual cluster is a pool of 8-GPU
 * nodes, jobs queue until placed and run for their trace duration. A shared-pool policy puts
 * all VCs into one pool as tenants with their VC size as quota. Per-VC pools are independent,
 * so they run on {@code threads} workers without changing any result.
 */
public final class PhillyProtocol {

    private PhillyProtocol() {
    }

    public static List<PhillyResult> run(
            final PoolFactory engines, final List<PhillyPolicy> policies, final List<PhillyJob> jobs,
            final Map<String, VirtualClusterSizes.Sizing> sizes, final int threads, final Map<String, String> engineOverrides,
            final ProgressBar progress) {
        final Map<String, List<PhillyJob>> byVc = new LinkedHashMap<>();
        sizes.keySet().forEach(vc -> byVc.put(vc, new ArrayList<>()));
        for (PhillyJob job : jobs) {
            final List<PhillyJob> list = byVc.get(job.virtualCluster());
            if (list == null) {
                throw new IllegalArgumentException("virtual cluster " + job.virtualCluster() + " has no size");
            }
            list.add(job);
        }
        final ExecutorService workers = Executors.newFixedThreadPool(Math.max(1, threads));
        try {
            final List<List<Future<PoolRunResult>>> futures = new ArrayList<>();
            for (PhillyPolicy policy : policies) {
                final List<Future<PoolRunResult>> perPool = new ArrayList<>();
                if (policy.sharedPool()) {
                    final Map<String, Integer> nodes = new LinkedHashMap<>();
                    sizes.forEach((vc, sizing) -> nodes.put(vc, sizing.nodes()));
                    perPool.add(workers.submit(() -> PhillyPoolRun.run(
                            engines, policy, "philly", nodes, jobs, engineOverrides, () -> progress.advance(1))));
                } else {
                    // Largest VCs first, so the two workers finish together.
                    byVc.entrySet().stream()
                            .sorted(Comparator.comparingInt((Map.Entry<String, List<PhillyJob>> e) -> e.getValue().size()).reversed())
                            .forEach(e -> perPool.add(workers.submit(() -> PhillyPoolRun.run(engines, policy, e.getKey(),
                                    Map.of(e.getKey(), sizes.get(e.getKey()).nodes()), e.getValue(), engineOverrides,
                                    () -> progress.advance(1)))));
                }
                futures.add(perPool);
            }
            final List<PhillyResult> results = new ArrayList<>();
            for (int p = 0; p < policies.size(); p++) {
                final List<PoolRunResult> pools = new ArrayList<>();
                for (Future<PoolRunResult> future : futures.get(p)) {
                    pools.add(future.get());
                }
                final List<JobResult> all = new ArrayList<>();
                pools.forEach(pool -> all.addAll(pool.jobs()));
                all.sort(Comparator.comparingLong(JobResult::submit).thenComparing(JobResult::jobId));
                results.add(new PhillyResult(policies.get(p), all, pools));
            }
            return results;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } finally {
            workers.shutdownNow();
        }
    }
}
