package io.gpupool.bench.engine;

import io.gpupool.scheduler.core.DecisionKind;
import io.gpupool.scheduler.core.EngineInput;
import io.gpupool.scheduler.core.EngineOutput;
import io.gpupool.scheduler.core.JobSpec;
import io.gpupool.scheduler.core.PoolEngine;
import java.io.PrintStream;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The placer's worst steady state: more work offered than the pool holds, so a queue stands and
 * every input meets it. Jobs arrive at a fixed rate in stream time with the pipeline bench's mix
 * (70 % 1-GPU, 20 % 2-GPU, 10 % whole 8-GPU nodes, four tenants) and run for {@code runtimeMs}
 * after placement; the offered GPU demand is {@code overload} times the pool. Measures engine
 * inputs (submits and completions) per second once the queue has built up.
 */
final class OverloadBench {
    private static final int[] SIZES = {1, 1, 1, 1, 1, 1, 1, 2, 2, 8};
    private static final double MEAN_SIZE = 1.9;

    private OverloadBench() {
    }

    public static void main(final String[] args) {
        final Map<String, String> out = new LinkedHashMap<>();
        run(EngineBenchOptions.defaults(), Integer.parseInt(args.length > 0 ? args[0] : "20000"),
                Double.parseDouble(args.length > 1 ? args[1] : "1.2"), out, System.err);
        out.forEach((k, v) -> System.out.println(k + "=" + v));
    }

    static void run(final EngineBenchOptions o, final int inputs, final double overload, final Map<String, String> out,
                    final PrintStream progress) {
        final PoolEngine engine = EngineBench.pool(o);
        final long gpus = (long) o.nodes() * o.gpusPerNode();
        final long runtimeMs = 2_000;
        // arrivals per second so that arrivals x runtime x mean size = overload x pool
        final double perSecond = overload * gpus / (MEAN_SIZE * runtimeMs / 1000.0);
        final Driver d = new Driver(engine, perSecond, runtimeMs);
        // warm-up: three runtimes of stream time, so the pool is full, the queue stands and the JIT settles
        while (d.nextArrivalMs < 3 * runtimeMs) {
            d.run(1_000);
        }
        progress.println("overload: warm-up done (" + engine.queueDepth().total() + " queued), timing " + inputs + " inputs");
        final long t0 = System.nanoTime();
        d.run(inputs);
        final long t1 = System.nanoTime();
        out.put("overload_offered_pct", String.format(Locale.ROOT, "%.0f", overload * 100));
        out.put("overload_queued", Integer.toString(engine.queueDepth().total()));
        out.put("overload_inputs_per_s", Long.toString(Math.round(inputs * 1e9 / (t1 - t0))));
    }

    /** Arrivals at a fixed stream-time rate; completions {@code runtimeMs} after each placement. */
    private static final class Driver {
        private final PoolEngine engine;
        private final double arrivalGapMs;
        private final long runtimeMs;
        private final ArrayDeque<Object[]> ends = new ArrayDeque<>(); // {end ms, job id}, in end order
        private double nextArrivalMs = 1;
        private long seq;

        Driver(final PoolEngine engine, final double perSecond, final long runtimeMs) {
            this.engine = engine;
            this.arrivalGapMs = 1000.0 / perSecond;
            this.runtimeMs = runtimeMs;
        }

        void run(final int inputs) {
            for (int i = 0; i < inputs; i++) {
                if (!ends.isEmpty() && (long) ends.peek()[0] <= (long) nextArrivalMs) {
                    final Object[] e = ends.poll();
                    record(engine.apply(new EngineInput.JobReport((long) e[0], (String) e[1],
                            EngineInput.JobEventKind.COMPLETED, engine.placementOf((String) e[1]), "", "")), (long) e[0]);
                } else {
                    final long ts = (long) nextArrivalMs;
                    nextArrivalMs += arrivalGapMs;
                    final String id = "o" + seq;
                    final JobSpec j = JobSpec.builder(id).tenant("tenant-" + (seq & 3))
                            .gang(1, SIZES[(int) (seq % SIZES.length)]).runtimeEstimateMs(runtimeMs).build();
                    seq++;
                    record(engine.apply(new EngineInput.SubmitJob(ts, j)), ts);
                }
            }
        }

        /** Every job placed by this input ends runtimeMs later (placements come in time order). */
        private void record(final EngineOutput out, final long ts) {
            for (final var d : out.decisions()) {
                if (d.kind() == DecisionKind.PLACED) {
                    ends.add(new Object[] {ts + runtimeMs, d.jobId()});
                }
            }
        }
    }
}
