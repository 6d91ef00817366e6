package io.gpupool.bench.engine;

import io.gpupool.scheduler.core.JobSpec;
import io.gpupool.scheduler.core.JobView;
import io.gpupool.scheduler.core.PoolEngine;
import io.gpupool.scheduler.stream.PoolEngines;
import io.gpupool.scheduler.stream.PoolFigures;
import io.gpupool.scheduler.stream.PoolView;
import io.gpupool.scheduler.stream.SchedulerMetrics;
import io.gpupool.scheduler.stream.ViewPublisher;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the pool views of queries and gauges cost ({@link PoolView}), on the engine bench's 4,096 x 8 GPU pool
 * held 75 % full with 200 waiting 8x8 gangs: the placer's cost of publishing one view (an engine snapshot),
 * a reader's first read of it (restore, then what {@code /jobs?state=queued} does: explain every waiting job),
 * and, with a placer thread applying release traffic flat out and publishing as the placer's punctuation
 * does, the staleness a query sees (how long it waits for a view that includes what the placer had applied
 * when it asked, how old and how far behind the view is when the answer is ready) and the placer's rate
 * without and with queries back to back. Prints {@code name=value} lines. Run with
 * {@code java -cp <classpath> io.gpupool.bench.engine.ViewBench [seconds per phase]}.
 */
public final class ViewBench {
    private ViewBench() {
    }

    public static Map<String, String> run(final EngineBenchOptions o, final int seconds, final PrintStream progress) {
        final Map<String, String> out = new LinkedHashMap<>();
        final EngineBench.Driver d = new EngineBench.Driver(o, JobSpec.builder("x").gang(1, 1).build(), 1);
        d.fillTo(0.75);
        d.queueGangs(200);
        out.put("pool_gpus", Integer.toString(o.nodes() * o.gpusPerNode()));
        out.put("waiting_jobs", Integer.toString(d.engine.queueDepth().total()));

        final List<Long> snapshotNs = new ArrayList<>();
        byte[] bytes = null;
        for (int i = 0; i < 15; i++) {
            final long t0 = System.nanoTime();
            bytes = d.engine.snapshot();
            snapshotNs.add(System.nanoTime() - t0);
        }
        // what the gauges cost instead since they read figures, not views: a scan of nodes and running jobs
        final List<Long> figuresNs = new ArrayList<>();
        for (int i = 0; i < 15; i++) {
            final long t0 = System.nanoTime();
            PoolFigures.of("bench", i, 0, d.engine);
            figuresNs.add(System.nanoTime() - t0);
        }
        out.put("placer_figures_ms_p50", ms(percentile(figuresNs.subList(5, 15), 50)));
        out.put("placer_figures_ms_max", ms(percentile(figuresNs.subList(5, 15), 100)));
        out.put("snapshot_bytes", Integer.toString(bytes.length));
        out.put("placer_publish_ms_p50", ms(percentile(snapshotNs.subList(5, 15), 50)));
        out.put("placer_publish_ms_max", ms(percentile(snapshotNs.subList(5, 15), 100)));
        final long r0 = System.nanoTime();
        final PoolEngine copy = PoolEngine.restore(bytes, d.engine.config());
        final long r1 = System.nanoTime();
        final List<JobView> queued = copy.queuedJobs();
        final long r2 = System.nanoTime();
        out.put("reader_restore_ms", ms(r1 - r0));
        out.put("reader_explain_queue_ms", ms(r2 - r1));
        out.put("reader_explained_jobs", Integer.toString(queued.size()));

        progress.println("view bench: placer alone for " + seconds + " s, then with queries back to back");
        final PoolEngines engines = new PoolEngines();
        final PoolEngines.Handle pool = engines.register("bench", d.engine);
        final ViewPublisher publisher = new ViewPublisher(new SchedulerMetrics(new SimpleMeterRegistry()));
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicLong applied = new AtomicLong();
        final Thread placer = new Thread(() -> {
            final long every = ViewPublisher.EVERY.toNanos();
            long nextPublish = System.nanoTime() + every;
            while (!stop.get()) {
                synchronized (pool) {
                    d.steady(1);
                    pool.advanced(applied.incrementAndGet());
                }
                if (System.nanoTime() >= nextPublish) {
                    publisher.publishIfWanted(pool, d.engine); // what the placer's punctuation does
                    nextPublish += every;
                }
            }
        }, "bench-placer");
        placer.setDaemon(true);
        placer.start();
        final long a0 = applied.get();
        sleepMs(seconds * 1000L);
        final long a1 = applied.get();
        final List<Long> waitNs = new ArrayList<>();
        final List<Long> answerNs = new ArrayList<>();
        final List<Long> ageMs = new ArrayList<>();
        final List<Long> behind = new ArrayList<>();
        final Random random = new Random(o.seed());
        int unanswered = 0;
        final long end = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < end) {
            sleepMs(random.nextInt(100)); // back to back: the most a placer is ever asked for views
            final long q0 = System.nanoTime();
            final Optional<PoolView> answer = pool.views().current();
            final long q1 = System.nanoTime();
            if (answer.isEmpty()) {
                unanswered++; // no view at all within the wait: only before the first one
                continue;
            }
            final PoolView v = answer.get();
            v.queuedJobs();
            final long q2 = System.nanoTime();
            waitNs.add(q1 - q0);
            answerNs.add(q2 - q0);
            ageMs.add(v.ageMs());
            behind.add(pool.journalOffset() - v.journalOffset());
        }
        final long a2 = applied.get();
        stop.set(true);
        join(placer);
        out.put("placer_inputs_per_s_alone", Long.toString((a1 - a0) / seconds));
        out.put("placer_inputs_per_s_with_back_to_back_queries", Long.toString((a2 - a1) / seconds));
        out.put("queries", Integer.toString(waitNs.size()));
        out.put("queries_without_a_view", Integer.toString(unanswered));
        out.put("query_wait_for_view_ms_p50", ms(percentile(waitNs, 50)));
        out.put("query_wait_for_view_ms_max", ms(percentile(waitNs, 100)));
        out.put("query_answer_ms_p50", ms(percentile(answerNs, 50)));
        out.put("query_answer_ms_max", ms(percentile(answerNs, 100)));
        out.put("view_age_at_answer_ms_p50", Long.toString(percentile(ageMs, 50)));
        out.put("view_age_at_answer_ms_max", Long.toString(percentile(ageMs, 100)));
        out.put("view_inputs_behind_at_answer_p50", Long.toString(percentile(behind, 50)));
        out.put("view_inputs_behind_at_answer_max", Long.toString(percentile(behind, 100)));
        return out;
    }

    private static long percentile(final List<Long> values, final int p) {
        final List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.isEmpty() ? 0 : sorted.get(Math.min(sorted.size() - 1, (int) ((sorted.size() - 1) * (p / 100.0))));
    }

    private static String ms(final long nanos) {
        return String.format(Locale.ROOT, "%.1f", nanos / 1e6);
    }

    private static void sleepMs(final long ms) {
        try {
            Thread.sleep(ms); // the bench paces its queries in wall time on purpose
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void join(final Thread t) {
        try {
            t.join();
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public static void main(final String[] args) {
        run(EngineBenchOptions.defaults(), args.length > 0 ? Integer.parseInt(args[0]) : 20, System.err)
                .forEach((k, v) -> System.out.println(k + "=" + v));
    }
}
