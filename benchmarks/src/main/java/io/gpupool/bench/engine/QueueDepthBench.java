package io.gpupool.bench.engine;

import io.gpupool.scheduler.core.DecisionKind;
import io.gpupool.scheduler.core.EngineInput;
import io.gpupool.scheduler.core.EngineOutput;
import io.gpupool.scheduler.core.JobSpec;
import io.gpupool.scheduler.core.PoolEngine;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What one decision costs with a backlog: a full pool and a queue held at a fixed depth. At each
 * depth, for a fresh engine: (a) a submit that must queue, (b) a release (a job COMPLETED) that
 * lets waiting jobs start, (c) explaining a waiting job (the QUEUED reason and its evidence, what
 * a query of the job builds). Jobs have the pipeline bench's mix (70 % 1-GPU, 20 % 2-GPU, 10 %
 * whole 8-GPU nodes, four tenants, a 2 s estimate); the oldest running job is the one that ends,
 * and stream time moves so that a job runs about its estimate. Prints {@code name=value} lines:
 * ns per input of each kind and how many jobs a release started on average.
 */
public final class QueueDepthBench {
    private static final int[] SIZES = {1, 1, 1, 1, 1, 1, 1, 2, 2, 8};
    private static final long RUNTIME_MS = 2_000;

    private QueueDepthBench() {
    }

    /**
     * Options: the depths to hold, the timed inputs of each kind per depth, untimed ones first, and how
     * many memory sizes jobs ask for (1: none asked; more: that many job shapes per GPU count, as when
     * users size their requests, and the queue's groups multiply).
     */
    public record Options(EngineBenchOptions pool, List<Integer> depths, int ops, int warmupOps, int memorySizes) {
        public Options {
            depths = List.copyOf(depths);
            if (ops < 1 || warmupOps < 0 || memorySizes < 1 || depths.isEmpty() || depths.stream().anyMatch(d -> d < 0)) {
                throw new IllegalArgumentException("need ops >= 1, warm-up >= 0 and depths >= 0; got ops " + ops
                        + ", warm-up " + warmupOps + ", depths " + depths);
            }
        }

        public static Options defaults() {
            return new Options(EngineBenchOptions.defaults(), List.of(0, 1_000, 10_000, 100_000), 20_000, 20_000, 1);
        }
    }

    public static Map<String, String> run(final Options o, final PrintStream progress) {
        final Map<String, String> out = new LinkedHashMap<>();
        out.put("pool_gpus", Integer.toString(o.pool().nodes() * o.pool().gpusPerNode()));
        out.put("memory_sizes", Integer.toString(o.memorySizes()));
        out.put("timer_overhead_cpu_ns", Long.toString(timerOverheadNs()));
        for (final int depth : o.depths()) {
            final Driver d = new Driver(EngineBench.pool(o.pool()), o.memorySizes());
            d.fill();
            d.holdDepth(depth, false);
            progress.println("queue depth " + depth + ": " + d.running.size() + " jobs running, "
                    + d.waiting.size() + " waiting; warm-up " + o.warmupOps());
            d.ops(depth, o.warmupOps(), false);
            d.reset();
            d.ops(depth, o.ops(), true);
            final String p = "depth_" + depth + "_";
            out.put(p + "waiting_at_end", Integer.toString(d.waiting.size()));
            out.put(p + "submit_queued_cpu_ns", Long.toString(d.submitNs / Math.max(1, d.submits)));
            out.put(p + "release_cpu_ns", Long.toString(d.releaseNs / Math.max(1, d.releases)));
            out.put(p + "starts_per_release", String.format(Locale.ROOT, "%.2f", (double) d.started / Math.max(1, d.releases)));
            out.put(p + "explain_queued_cpu_ns", Long.toString(d.explainNs / Math.max(1, d.explains)));
            out.put(p + "inputs_per_cpu_s", Long.toString(Math.round((d.submits + d.releases) * 1e9
                    / Math.max(1, d.submitNs + d.releaseNs))));
        }
        return out;
    }

    /** One engine with a full pool; submits and completions in stream time, each timed by kind. */
    private static final class Driver {
        final PoolEngine engine;
        /** Running jobs, oldest placement first: the next to end. */
        final ArrayDeque<String> running = new ArrayDeque<>();
        /** Waiting jobs, from the decisions: the bench reads no engine view per input (a view may cost the queue). */
        final HashSet<String> waiting = new HashSet<>();
        private double clockMs = 1;
        private long seq;
        long submitNs;
        long submits;
        long releaseNs;
        long releases;
        long started;
        long explainNs;
        long explains;
        private long lastNs;

        private final int memorySizes;

        Driver(final PoolEngine engine, final int memorySizes) {
            this.engine = engine;
            this.memorySizes = memorySizes;
        }

        void reset() {
            submitNs = 0;
            submits = 0;
            releaseNs = 0;
            releases = 0;
            started = 0;
            explainNs = 0;
            explains = 0;
        }

        /** Submits until one has to wait: the pool is full. */
        void fill() {
            while (waiting.isEmpty()) {
                submit(false);
            }
        }

        /** Submits until {@code depth + 1} jobs wait (the one that waits at the end included). */
        void holdDepth(final int depth, final boolean timed) {
            while (waiting.size() <= depth) {
                final String id = submit(timed);
                if (timed && waiting.contains(id)) {
                    final long t0 = cpu();
                    engine.job(id);
                    explainNs += cpu() - t0;
                    explains++;
                }
            }
        }

        /** {@code n} rounds of: fill the queue back to its depth, one release. */
        void ops(final int depth, final int n, final boolean timed) {
            for (int i = 0; i < n; i++) {
                holdDepth(depth, timed);
                release(timed);
            }
        }

        private String submit(final boolean timed) {
            final long s = seq++;
            final String id = "q" + s;
            final JobSpec j = JobSpec.builder(id).tenant("tenant-" + (s & 3)).gang(1, SIZES[(int) (s % SIZES.length)])
                    .memoryMib(memorySizes == 1 ? 0 : 1_024L * (1 + s % memorySizes)).runtimeEstimateMs(RUNTIME_MS).build();
            final EngineOutput out = apply(new EngineInput.SubmitJob(tick(), j));
            if (timed) {
                submitNs += lastNs;
                submits++;
            }
            record(out);
            return id;
        }

        private void release(final boolean timed) {
            final String id = running.poll();
            final EngineOutput out = apply(new EngineInput.JobReport(tick(), id, EngineInput.JobEventKind.COMPLETED,
                    engine.placementOf(id), "", ""));
            final int placed = record(out);
            if (timed) {
                releaseNs += lastNs;
                releases++;
                started += placed;
            }
        }

        /** Applies the input; its CPU time in {@link #lastNs}. */
        private EngineOutput apply(final EngineInput in) {
            final long t0 = cpu();
            final EngineOutput out = engine.apply(in);
            lastNs = cpu() - t0;
            return out;
        }

        /** Remembers the jobs placed and those that wait; returns how many were placed. */
        private int record(final EngineOutput out) {
            int placed = 0;
            for (final var d : out.decisions()) {
                if (d.kind() == DecisionKind.QUEUED) {
                    waiting.add(d.jobId());
                } else {
                    waiting.remove(d.jobId());
                }
                if (d.kind() == DecisionKind.PLACED) {
                    running.add(d.jobId());
                    placed++;
                }
            }
            return placed;
        }

        /** Stream time moves so that the running jobs end about as fast as they are estimated to. */
        private long tick() {
            clockMs += (double) RUNTIME_MS / Math.max(1, running.size());
            return (long) clockMs;
        }
    }

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** CPU time of this thread: on a shared machine wall time also counts the waits for a core. */
    static long cpu() {
        return THREADS.getCurrentThreadCpuTime();
    }

    /** What a pair of {@link #cpu()} reads costs by itself (the least of many: part of every timed input). */
    private static long timerOverheadNs() {
        long least = Long.MAX_VALUE;
        for (int i = 0; i < 10_000; i++) {
            final long t0 = cpu();
            least = Math.min(least, cpu() - t0);
        }
        return least;
    }

    public static void main(final String[] args) {
        final Options d = Options.defaults();
        final Options o = args.length == 0 ? d : new Options(d.pool(),
                java.util.Arrays.stream(args[0].split(",")).map(Integer::valueOf).toList(),
                args.length > 1 ? Integer.parseInt(args[1]) : d.ops(), args.length > 2 ? Integer.parseInt(args[2]) : d.warmupOps(),
                args.length > 3 ? Integer.parseInt(args[3]) : d.memorySizes());
        run(o, System.err).forEach((k, v) -> System.out.println(k + "=" + v));
    }
}
