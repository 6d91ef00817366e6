package io.gpupool.cli.up;

import io.gpupool.localstack.secure.StackPrincipal;
import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.scheduler.query.QueryEndpoint;
import io.gpupool.sink.apply.PartKey;
import io.gpupool.topics.Topic;
import io.gpupool.topics.TopicCatalog;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Live progress of {@code gpupool up} on stderr, one name=value line every --progress-every, and
 * the run's figures on stdout when it stops. Jobs are counted from what the scheduler decided
 * ({@link DecisionTally}: every job of this run once, whoever submitted it, none of an earlier run again
 * after a restart); running from the sink; queued, GPUs allocated and busy (and their share of the
 * pool's GPUs) from the scheduler's query API; decisions from its /metrics; what the generator sent
 * (acknowledged by the broker) and failed to send from the generator.
 */
public final class ProgressService implements UpService {

    private final PipelineOptions options;
    private final PipelineParts parts;
    private final PrintWriter err;
    /** When this run began: jobs whose first decision comes from an entry since then are the run's. */
    private final long runStartMs = System.currentTimeMillis();

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
        // as the auditor on a secured stack: it only reads the decisions
        final Properties client = context.clientProperties(StackPrincipal.AUDITOR);
        final DecisionTally jobs = new DecisionTally(client, context.registryUrl().orElseThrow(
                () -> new IllegalStateException("progress needs the schema registry")),
                TopicCatalog.defaults().withOverrides(context.config()).name(Topic.DECISIONS), runStartMs).start();
        final Duration every = options.progressEvery;
        final Thread thread = new Thread(() -> {
            long lastDecisions = decisionsAtStart;
            long lastNanos = began;
            try {
                while (!every.isZero()) {
                    Thread.sleep(every.toMillis());
                    final long now = System.nanoTime();
                    final long decisions = probe.flatMap(p -> p.decisions(null)).orElse(lastDecisions);
                    err.println("gpupool up: " + line(probe, jobs, (now - began) / 1e9, decisions - decisionsAtStart,
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
            final Optional<JsonNode> pool = probe.flatMap(p -> p.pool(PipelineParts.POOL));
            jobs.close();
            final PrintWriter out = context.out();
            out.printf(Locale.ROOT, "run_seconds=%.1f%n", seconds);
            for (final DecisionTally.Count c : DecisionTally.Count.values()) {
                out.printf("jobs_%s=%d%n", c.name().toLowerCase(Locale.ROOT), jobs.count(c));
            }
            out.printf("generator_sent=%d%n", parts.workload().map(w -> w.submitted()).orElse(0L));
            out.printf("generator_send_failed=%d%n", parts.workload().map(w -> w.sendFailed()).orElse(0L));
            out.printf("gpus_allocated_pct=%s%n", pct(pool, "allocated"));
            out.printf("gpus_busy_pct=%s%n", pct(pool, "busy"));
            out.printf("decisions=%d%n", decisions);
            out.printf(Locale.ROOT, "decisions_per_s=%.2f%n", seconds > 0 ? decisions / seconds : 0);
            out.flush();
        };
    }

    /** GPUs in {@code state} as a share of the pool's GPUs, in percent ("?" while the scheduler does not answer). */
    static String pct(final Optional<JsonNode> pool, final String state) {
        return pool.filter(p -> p.path("gpus").path("total").asLong() > 0)
                .map(p -> String.format(Locale.ROOT, "%.1f",
                        100.0 * p.path("gpus").path(state).asDouble() / p.path("gpus").path("total").asLong()))
                .orElse("?");
    }

    private String line(final Optional<SchedulerProbe> probe, final DecisionTally jobs, final double seconds,
                        final long decisions, final double rate) {
        final Optional<JsonNode> pool = probe.flatMap(p -> p.pool(PipelineParts.POOL));
        final Set<String> running = parts.sink().map(s -> s.running().keySet().stream().map(PartKey::jobId)
                .collect(Collectors.toSet())).orElse(Set.of());
        return String.format(Locale.ROOT,
                "t=%.0fs submitted=%d placed=%d running=%d queued=%s completed=%d failed=%d cancelled=%d rejected=%d"
                        + " gpus_allocated=%s/%s (%s%%) gpus_busy=%s (%s%%) decisions=%d decisions_per_s=%.1f"
                        + " generator_sent=%d generator_send_failed=%d",
                seconds, jobs.count(DecisionTally.Count.SUBMITTED), jobs.count(DecisionTally.Count.PLACED), running.size(),
                pool.map(p -> p.path("queue").path("total").asText()).orElse("?"),
                jobs.count(DecisionTally.Count.COMPLETED), jobs.count(DecisionTally.Count.FAILED),
                jobs.count(DecisionTally.Count.CANCELLED), jobs.count(DecisionTally.Count.REJECTED),
                pool.map(p -> p.path("gpus").path("allocated").asText()).orElse("?"),
                pool.map(p -> p.path("gpus").path("total").asText()).orElse("?"), pct(pool, "allocated"),
                pool.map(p -> p.path("gpus").path("busy").asText()).orElse("?"), pct(pool, "busy"), decisions, rate,
                parts.workload().map(w -> w.submitted()).orElse(0L), parts.workload().map(w -> w.sendFailed()).orElse(0L));
    }
}
