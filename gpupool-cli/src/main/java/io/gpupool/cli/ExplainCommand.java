package io.gpupool.cli;

import io.gpupool.cli.config.ExitCodes;
import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.cli.view.HumanTime;
import io.gpupool.cli.view.JobCells;
import io.gpupool.cli.view.OutputOptions;
import io.gpupool.cli.view.Screen;
import io.gpupool.scheduler.query.QueryClient;
import java.io.PrintWriter;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code gpupool explain JOB}: where a job is, why, and the decisions that brought it there. */
@Command(name = "explain", mixinStandardHelpOptions = true,
        description = "Shows a job's state, times, placement, the reason it waits (with evidence) and its decision history.")
public final class ExplainCommand implements Callable<Integer>, Screen {

    @Mixin
    SchedulerEndpointOption endpoint;

    @Mixin
    OutputOptions output;

    @Parameters(paramLabel = "JOB", description = "Job id.")
    String jobId;

    @CommandLine.Mixin
    ExplainAt history;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (history.requested()) {
            return history.run(jobId, endpoint.dataDir, spec.commandLine());
        }
        return output.show("gpupool explain", this, new QueryClient(endpoint.baseUrl()), spec.commandLine());
    }

    @Override
    public JsonNode fetch(final QueryClient scheduler) {
        return scheduler.job(jobId);
    }

    @Override
    public int failureCode(final QueryClient.QueryException e) {
        return ExitCodes.forQuery(e.status()).code();
    }

    @Override
    public void print(final JsonNode j, final boolean wide, final HumanTime time, final PrintWriter out) {
        out.printf("job %s in pool %s: %s%n", j.path("jobId").asText(), j.path("pool").asText(), j.path("state").asText());
        if (j.has("tenant")) {
            out.printf("  tenant %s, class %s, priority %s%n", j.path("tenant").asText(), j.path("priorityClass").asText(),
                    j.path("priority").asText());
        }
        times(j, time, out);
        final JsonNode reason = j.path("reason");
        if (!reason.isMissingNode() && !reason.isNull()) {
            out.printf("  reason: %s: %s%n", reason.path("code").asText(), time.text(reason.path("message").asText()));
            for (final Iterator<Map.Entry<String, JsonNode>> it = reason.path("evidence").fields(); it.hasNext(); ) {
                final Map.Entry<String, JsonNode> e = it.next();
                out.printf("    %s: %s%n", e.getKey(), time.evidence(e.getKey(), e.getValue().asText()));
            }
        }
        PendingAdviceText.print(out, j);
        if (j.hasNonNull("placementId")) {
            out.printf("  placement %s%n", j.path("placementId").asText());
        }
        for (final JsonNode a : j.path("placement")) {
            out.printf("  on %s GPUs %s%n", a.path("nodeId").asText(), a.path("gpus").toString());
        }
        if (j.path("lateEvents").asInt() > 0 || j.path("refusedEvents").asInt() > 0) {
            // late events of earlier placements are normal (sinks answer asynchronously); refused ones are not
            out.printf("  job events: %d late (of earlier placements, ignored), %d refused%n",
                    j.path("lateEvents").asInt(), j.path("refusedEvents").asInt());
            if (j.hasNonNull("lastRefusal")) {
                out.printf("    last refused: %s%n", j.path("lastRefusal").asText());
            }
        }
        if (j.path("history").size() > 0) {
            out.println("  decisions:");
            for (final JsonNode d : j.path("history")) {
                out.printf("    %s %s %-9s %s: %s (journal %s@%s)%n", JobCells.local(JobCells.time(d, "timestampMs"), time),
                        d.path("decisionId").asText(), d.path("outcome").asText(), d.path("reasonCode").asText(),
                        time.text(d.path(d.has("text") ? "text" : "message").asText()), d.path("journalPartition").asText(),
                        d.path("journalOffset").asText());
            }
        }
    }

    /** Submitted, started, ended (or expected to), each as local time and relative, with how long it waited and ran. */
    private static void times(final JsonNode j, final HumanTime time, final PrintWriter out) {
        final Long submitted = JobCells.time(j, "submittedMs");
        final Long started = JobCells.started(j);
        final Long ended = JobCells.time(j, "endedMs");
        if (submitted != null) {
            final long waitedTo = started != null ? started : ended != null ? ended : time.nowMs();
            out.printf("  submitted %s, waited %s%n", time.at(submitted), HumanTime.duration(Math.max(0, waitedTo - submitted)));
        }
        final Long expectedStart = JobCells.time(j, "expectedStartMs");
        if (started == null && expectedStart != null) {
            out.printf("  expected to start %s (the head-of-queue reservation)%n", time.at(expectedStart));
        }
        if (started != null) {
            out.printf("  started %s, %s %s%n", time.at(started), ended == null ? "running for" : "ran",
                    JobCells.elapsed(j, time));
        }
        final Long expectedEnd = JobCells.time(j, "expectedEndMs");
        if (ended != null) {
            out.printf("  ended %s%n", time.at(ended));
        } else if (expectedEnd != null) {
            out.printf("  expected to end %s (runtime estimate %s)%n", time.at(expectedEnd),
                    HumanTime.duration(j.path("runtimeEstimateMs").asLong()));
        }
    }
}
