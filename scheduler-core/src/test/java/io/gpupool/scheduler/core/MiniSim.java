package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiConsumer;

/**
 * A tiny discrete-event driver for tests: submits jobs at their times and completes each placed
 * job exactly its runtime after it was placed. Records every decision and each job's start time.
 */
final class MiniSim {
    record Arrival(long atMs, JobSpec job, long runtimeMs) {
    }

    final PoolEngine engine;
    final Map<String, Long> runtimes = new TreeMap<>();
    final Map<String, Long> started = new TreeMap<>();
    final List<Decision> decisions = new ArrayList<>();
    /** (end time, job id) of running jobs. */
    private final TreeSet<Map.Entry<Long, String>> ends = new TreeSet<>(
            (a, b) -> a.getKey().equals(b.getKey()) ? a.getValue().compareTo(b.getValue()) : Long.compare(a.getKey(), b.getKey()));
    /** Called after every input with the engine and the time. */
    BiConsumer<PoolEngine, Long> observer = (e, t) -> { };

    MiniSim(final PoolEngine engine) {
        this.engine = engine;
    }

    void run(final List<Arrival> arrivals, final long untilMs) {
        int next = 0;
        while (true) {
            final long nextArrival = next < arrivals.size() ? arrivals.get(next).atMs() : Long.MAX_VALUE;
            final long nextEnd = ends.isEmpty() ? Long.MAX_VALUE : ends.first().getKey();
            final long t = Math.min(nextArrival, nextEnd);
            if (t == Long.MAX_VALUE || t > untilMs) {
                return;
            }
            if (nextEnd <= nextArrival) {
                final Map.Entry<Long, String> e = ends.pollFirst();
                apply(new EngineInput.JobReport(t, e.getValue(), EngineInput.JobEventKind.COMPLETED,
                        engine.placementOf(e.getValue()), "", ""), t);
            } else {
                final Arrival a = arrivals.get(next++);
                runtimes.put(a.job().jobId(), a.runtimeMs());
                apply(new EngineInput.SubmitJob(t, a.job()), t);
            }
        }
    }

    private void apply(final EngineInput in, final long t) {
        final EngineOutput out = engine.apply(in);
        for (final Decision d : out.decisions()) {
            decisions.add(d);
            if (d.kind() == DecisionKind.PLACED) {
                started.put(d.jobId(), t);
                ends.add(Map.entry(t + runtimes.get(d.jobId()), d.jobId()));
            } else if (d.kind() == DecisionKind.EVICTED || d.kind() == DecisionKind.CANCELLED) {
                ends.removeIf(e -> e.getValue().equals(d.jobId()));
            }
        }
        observer.accept(engine, t);
    }
}
