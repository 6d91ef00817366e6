package io.gpupool.simulator.fgd;

import io.gpupool.simulator.pool.PoolFactory;
import io.gpupool.simulator.progress.ProgressBar;
import io.gpupool.simulator.trace.OpenbNode;
import io.gpupool.simulator.trace.OpenbPod;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Protocol 1 (FGD, Weng et al., ATC'23): for each seed, one inflated arrival sequence; for each
 * policy, one fresh engine over it. Runs are independent and single-threaded, so they spread
 * over {@code threads} workers without changing any result.
 */
public final class FgdProtocol {

    public static final double TARGET_RATIO = 1.3;

    private FgdProtocol() {
    }

    public static List<FgdResult> run(
            final PoolFactory engines, final List<String> policies, final List<OpenbNode> nodes, final List<OpenbPod> trace,
            final int seeds, final ArrivalOrder order, final int threads, final Map<String, String> engineOverrides,
            final ProgressBar progress) {
        final long capacity = nodes.stream().mapToLong(OpenbNode::gpuMilliCapacity).sum();
        if (capacity <= 0) {
            throw new IllegalArgumentException("the node list has no GPUs");
        }
        final ExecutorService workers = Executors.newFixedThreadPool(Math.max(1, threads));
        try {
            final List<List<Future<FgdSeries>>> futures = new ArrayList<>();
            for (String policy : policies) {
                final List<Future<FgdSeries>> perSeed = new ArrayList<>();
                for (long seed = 0; seed < seeds; seed++) {
                    final long s = seed;
                    perSeed.add(workers.submit(() -> {
                        final List<OpenbPod> arrivals = FgdWorkload.arrivals(trace, capacity, TARGET_RATIO, s, order);
                        final FgdSeries series = FgdRun.run(engines, policy, s, nodes, arrivals, engineOverrides);
                        progress.advance(1);
                        return series;
                    }));
                }
                futures.add(perSeed);
            }
            final List<FgdResult> results = new ArrayList<>();
            for (int p = 0; p < policies.size(); p++) {
                final List<FgdSeries> series = new ArrayList<>();
                for (Future<FgdSeries> future : futures.get(p)) {
                    series.add(future.get());
                }
                results.add(new FgdResult(policies.get(p), series));
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
