package io.gpupool.bench.engine;

import io.gpupool.scheduler.core.EngineConfig;
import io.gpupool.scheduler.core.EngineInput;
import io.gpupool.scheduler.core.EngineOutput;
import io.gpupool.scheduler.core.GpuSpec;
import io.gpupool.scheduler.core.HcaLinkLayer;
import io.gpupool.scheduler.core.HcaSpec;
import io.gpupool.scheduler.core.JobSpec;
import io.gpupool.scheduler.core.NodeSpec;
import io.gpupool.scheduler.core.PoolEngine;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * Measures the engine on one thread: a pool kept between 60 % and 90 % full by release traffic,
 * single-GPU placements and 8-node x 8-GPU gang placements on one leaf. Each timed operation is a
 * submit (placed) plus, in steady state, the completion of a random running job, so the figures
 * include the release path. Prints {@code name=value} lines.
 */
public final class EngineBench {
    private static final double LOW = 0.60;
    private static final double HIGH = 0.90;

    private EngineBench() {
    }

    public static Map<String, String> run(final EngineBenchOptions o, final PrintStream progress) {
        final Map<String, String> out = new LinkedHashMap<>();
        out.put("pool_nodes", Integer.toString(o.nodes()));
        out.put("pool_gpus", Integer.toString(o.nodes() * o.gpusPerNode()));
        out.put("policy", o.policy().policyName());

        final long heapBefore = usedHeap();
        final Driver single = new Driver(o, JobSpec.builder("x").gang(1, 1).build(), 1);
        single.fillTo((LOW + HIGH) / 2);
        final long heapAfter = usedHeap();
        out.put("heap_mb", Long.toString(Math.max(0, heapAfter - heapBefore) / (1024 * 1024)));
        single.steady(o.warmupOps());
        progress.println("single-GPU: warm-up done, timing " + o.singleOps() + " placements");
        final long t0 = System.nanoTime();
        final long c0 = cpu();
        final int placed = single.steady(o.singleOps());
        final long c1 = cpu();
        final long t1 = System.nanoTime();
        out.put("single_gpu_placements", Integer.toString(placed));
        out.put("single_gpu_placements_per_s", Long.toString(perSecond(placed, t1 - t0)));
        out.put("single_gpu_placements_per_cpu_s", Long.toString(perSecond(placed, c1 - c0)));
        out.put("single_gpu_fill_pct", pct(single.fill()));

        final Driver gang = new Driver(o, JobSpec.builder("x").gang(8, 8).build(), 64);
        gang.fillTo((LOW + HIGH) / 2);
        gang.steady(Math.max(1, o.warmupOps() / 8));
        progress.println("gang 8x8: warm-up done, timing " + o.gangOps() + " placements");
        final long g0 = System.nanoTime();
        final long d0 = cpu();
        final int gplaced = gang.steady(o.gangOps());
        final long d1 = cpu();
        final long g1 = System.nanoTime();
        out.put("gang_8x8_placements", Integer.toString(gplaced));
        out.put("gang_8x8_placements_per_s", Long.toString(perSecond(gplaced, g1 - g0)));
        out.put("gang_8x8_placements_per_cpu_s", Long.toString(perSecond(gplaced, d1 - d0)));
        out.put("gang_8x8_fill_pct", pct(gang.fill()));
        out.put("snapshot_bytes", Integer.toString(gang.engine.snapshot().length));

        // a busy queue: every release runs a queue pass over waiting gangs (order, reservation, tries)
        final Driver busy = single;
        busy.queueGangs(200);
        final int passes = Math.max(1, o.singleOps() / 100);
        final long q0 = System.nanoTime();
        final long p0 = cpu();
        busy.steady(passes);
        final long p1 = cpu();
        final long q1 = System.nanoTime();
        out.put("queue_waiting_gangs", Integer.toString(busy.engine.queueDepth().total()));
        out.put("queue_pass_ops_per_s", Long.toString(perSecond(passes, q1 - q0)));
        out.put("queue_pass_ops_per_cpu_s", Long.toString(perSecond(passes, p1 - p0)));
        // a standing queue: more offered than the pool holds, every submit and completion meets it
        OverloadBench.run(o, Math.max(1, o.singleOps() / 20), 1.2, out, progress);
        // both engines are still live here: the figure for two pools after all the release traffic
        out.put("heap_mb_two_pools_after_run", Long.toString(Math.max(0, usedHeap() - heapBefore) / (1024 * 1024)));
        Reference.reachabilityFence(single);
        Reference.reachabilityFence(gang);
        return out;
    }

    /**
     * CPU time of this thread: on a machine shared with other work, wall time also counts the time
     * the thread waited for a core; this counts only what the engine used.
     */
    private static long cpu() {
        final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        return mx.isCurrentThreadCpuTimeSupported() ? mx.getCurrentThreadCpuTime() : System.nanoTime();
    }

    private static long perSecond(final int n, final long nanos) {
        return nanos <= 0 ? 0 : Math.round(n * 1e9 / nanos);
    }

    private static String pct(final double f) {
        return String.format(Locale.ROOT, "%.1f", 100 * f);
    }

    private static long usedHeap() {
        final Runtime rt = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return rt.totalMemory() - rt.freeMemory();
    }

    public static PoolEngine pool(final EngineBenchOptions o) {
        // no limit on waiting jobs: the queue benches hold 100,000 waiting, the default limit
        final PoolEngine e = new PoolEngine(EngineConfig.fromSettings(Map.of("pool", "bench", "policy",
                o.policy().policyName(), "max-waiting-jobs", "0")));
        final int perLeaf = o.nodes() / o.leaves();
        final List<HcaSpec> hcas = new ArrayList<>();
        for (int h = 0; h < 8; h++) {
            hcas.add(new HcaSpec("mlx5_" + h, HcaLinkLayer.INFINIBAND, h));
        }
        for (int n = 0; n < o.nodes(); n++) {
            final List<GpuSpec> gpus = new ArrayList<>(o.gpusPerNode());
            for (int g = 0; g < o.gpusPerNode(); g++) {
                gpus.add(new GpuSpec("GPU-" + n + "-" + g, "H100", 81_559, 0, g / 4));
            }
            e.apply(new EngineInput.NodeUpsert(0, new NodeSpec("node" + n, "leaf" + n / perLeaf,
                    "spine" + n / perLeaf / 8, 224_000, 2_000_000, gpus, hcas)));
        }
        return e;
    }

    /** Submits copies of one job shape and completes random running ones to hold the fill band. */
    static final class Driver {
        final PoolEngine engine;
        private final JobSpec shape;
        private final int gpusPerJob;
        private final long totalGpus;
        private final Random random;
        private final List<String> running = new ArrayList<>();
        private long held;
        long ts = 1;
        private long next;

        Driver(final EngineBenchOptions o, final JobSpec shape, final int gpusPerJob) {
            this.engine = pool(o);
            this.shape = shape;
            this.gpusPerJob = gpusPerJob;
            this.totalGpus = (long) o.nodes() * o.gpusPerNode();
            this.random = new Random(o.seed());
        }

        double fill() {
            return (double) held / totalGpus;
        }

        void fillTo(final double target) {
            while (fill() < target) {
                if (!submit()) {
                    throw new IllegalStateException("could not fill the pool to " + target + ": stuck at " + fill());
                }
            }
        }

        /** Submits {@code n} 8x8 gangs with an hour's runtime estimate: in a pool this full they wait. */
        void queueGangs(final int n) {
            for (int i = 0; i < n; i++) {
                engine.apply(new EngineInput.SubmitJob(ts++, JobSpec.builder("wait" + i).gang(8, 8)
                        .runtimeEstimateMs(3_600_000).build()));
            }
        }

        /** Runs {@code ops} submissions in the band; returns how many were placed. */
        int steady(final int ops) {
            int placed = 0;
            for (int i = 0; i < ops; i++) {
                while (fill() > HIGH || (fill() > LOW && random.nextBoolean())) {
                    complete();
                }
                if (submit()) {
                    placed++;
                } else {
                    complete();
                }
            }
            return placed;
        }

        private boolean submit() {
            final String id = "j" + next++;
            final JobSpec j = new JobSpec(id, "bench", "t" + (next & 3), shape.priorityClass(), 0, shape.nodes(),
                    shape.gpusPerNode(), shape.gpuMilli(), 0, 0, 0, List.of(), shape.topology(), true, shape.network(),
                    false, 0, false, 0, true);
            final EngineOutput out = engine.apply(new EngineInput.SubmitJob(ts++, j));
            if (!out.commands().isEmpty()) {
                running.add(id);
                held += gpusPerJob;
                return true;
            }
            return false;
        }

        private void complete() {
            if (running.isEmpty()) {
                return;
            }
            final int at = random.nextInt(running.size());
            final String id = running.get(at);
            running.set(at, running.get(running.size() - 1));
            running.remove(running.size() - 1);
            engine.apply(new EngineInput.JobReport(ts++, id, EngineInput.JobEventKind.COMPLETED, engine.placementOf(id), "", ""));
            held -= gpusPerJob;
        }
    }

    public static void main(final String[] args) {
        run(EngineBenchOptions.defaults(), System.err).forEach((k, v) -> System.out.println(k + "=" + v));
    }
}
