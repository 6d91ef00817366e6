package io.gpupool.cli.up;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.scheduler.query.QueryEndpoint;
import io.gpupool.sink.apply.PartKey;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Live progress of {@code gpupool up} on stderr, one name=value line every --progress-every, and
 * the run's figures on stdout when it stops. Every figure comes from a running part: submitted
 * (acknowledged by the broker) and send failures from the workload, running and completed from the sink, queued, GPUs allocated and busy from the
 * scheduler's query API, decisions from the scheduler's /metrics.
 */
public final class ProgressService implements UpService {

    private final PipelineOptions options;
    private final PipelineParts parts;
    private final PrintWriter err;

    public ProgressService(final PipelineOptions options, final PipelineParts parts, final PrintWriter err) {
        this.options = options;
        this.parts = parts;
        this.err = err;
    }

    @Override
    public String name() {
        return "progress";
    }

    @Override
    public AutoCloseable start(final UpContext context) {
        final Optional<SchedulerProbe> probe = QueryEndpoint.find(context.settings().broker().layout().dataDir())
                .map(SchedulerProbe::new);
        final long began = System.nanoTime();
        final long decisionsAtStart = probe.flatMap(p -> p.decisions(null)).orElse(0L);
        final long placedAtStart = probe.flatMap(p -> p.decisions("PLACED")).orElse(0L);
        final Duration every = options.progressEvery;
        final Thread thread = new Thread(() -> {
            long lastDecisions = decisionsAtStart;
            long lastNanos = began;
            try {
                while (!every.isZero()) {
                    Thread.sleep(every.toMillis());
                    final long now = System.nanoTime();
                    final long decisions = probe.flatMap(p -> p.decisions(null)).orElse(lastDecisions);
                    err.println("gpupool up: " + line(probe, (now - began) / 1e9, decisions - decisionsAtStart,
                            (decisions - lastDecisions) / ((now - lastNanos) / 1e9)));
                    err.flush();
                    lastDecisions = decisions;
                    lastNanos = now;
                }
            } catch (InterruptedException stop) {
                // close() ends the loop.
            }
        }, "gpupool-up-progress");
        thread.setDaemon(true);
        thread.start();
        return () -> {
            thread.interrupt();
            thread.join(2_000);
            final double seconds = (System.nanoTime() - began) / 1e9;
            final long decisions = probe.flatMap(p -> p.decisions(null)).orElse(decisionsAtStart) - decisionsAtStart;
            final long placed = probe.flatMap(p -> p.decisions("PLACED")).orElse(placedAtStart) - placedAtStart;
            final PrintWriter out = context.out();
            out.printf(Locale.ROOT, "run_seconds=%.1f%n", seconds);
            out.printf("jobs_submitted=%d%n", parts.workload().map(w -> w.submitted()).orElse(0L));
            out.printf("jobs_send_failed=%d%n", parts.workload().map(w -> w.sendFailed()).orElse(0L));
            out.printf("jobs_placed=%d%n", placed);
            out.printf("jobs_started=%d%n", parts.events("STARTED"));
            out.printf("jobs_completed=%d%n", parts.events("COMPLETED"));
            out.printf("jobs_evicted=%d%n", parts.events("EVICTED"));
            out.printf("jobs_failed=%d%n", parts.events("FAILED"));
            out.printf("decisions=%d%n", decisions);
            out.printf(Locale.ROOT, "decisions_per_s=%.2f%n", seconds > 0 ? decisions / seconds : 0);
            out.flush();
        };
    }

    private String line(final Optional<SchedulerProbe> probe, final double seconds, final long decisions, final double rate) {
        final Optional<JsonNode> pool = probe.flatMap(p -> p.pool(PipelineParts.POOL));
        final Set<String> running = parts.sink().map(s -> s.running().keySet().stream().map(PartKey::jobId)
                .collect(Collectors.toSet())).orElse(Set.of());
        return String.format(Locale.ROOT,
                "t=%.0fs submitted=%d jobs_send_failed=%d running=%d queued=%s completed=%d gpus_allocated=%s/%s gpus_busy=%s"
                        + " decisions=%d decisions_per_s=%.1f",
                seconds, parts.workload().map(w -> w.submitted()).orElse(0L),
                parts.workload().map(w -> w.sendFailed()).orElse(0L), running.size(),
                pool.map(p -> p.path("queue").path("total").asText()).orElse("?"), parts.events("COMPLETED"),
                pool.map(p -> p.path("gpus").path("allocated").asText()).orElse("?"),
                pool.map(p -> p.path("gpus").path("total").asText()).orElse("?"),
                pool.map(p -> p.path("gpus").path("busy").asText()).orElse("?"), decisions, rate);
    }
}
