package io.gpupool.cli;

import io.gpupool.cli.config.ExitCodes;
import com.fasterxml.jackson.databind.JsonNode;
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
        description = "Shows a job's state, placement, the reason it waits (with evidence) and its decision history.")
public final class ExplainCommand implements Callable<Integer> {

    @Mixin
    SchedulerEndpointOption endpoint;

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
        final JsonNode j;
        try {
            j = new QueryClient(endpoint.baseUrl()).job(jobId);
        } catch (QueryClient.QueryException e) {
            spec.commandLine().getErr().println("gpupool explain: " + e.getMessage());
            return ExitCodes.forQuery(e.status()).code();
        }
        final PrintWriter out = spec.commandLine().getOut();
        out.printf("job %s in pool %s: %s%n", j.path("jobId").asText(), j.path("pool").asText(), j.path("state").asText());
        if (j.has("tenant")) {
            out.printf("  tenant %s, class %s, priority %s%n", j.path("tenant").asText(), j.path("priorityClass").asText(),
                    j.path("priority").asText());
        }
        final JsonNode reason = j.path("reason");
        if (!reason.isMissingNode() && !reason.isNull()) {
            out.printf("  reason: %s: %s%n", reason.path("code").asText(), reason.path("message").asText());
            for (final Iterator<Map.Entry<String, JsonNode>> it = reason.path("evidence").fields(); it.hasNext(); ) {
                final Map.Entry<String, JsonNode> e = it.next();
                out.printf("    %s: %s%n", e.getKey(), e.getValue().asText());
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
                out.printf("    %s %-9s %s: %s (journal %s@%s)%n", d.path("decisionId").asText(), d.path("outcome").asText(),
                        d.path("reasonCode").asText(), d.path(d.has("text") ? "text" : "message").asText(), d.path("journalPartition").asText(),
                        d.path("journalOffset").asText());
            }
        }
        out.flush();
        return 0;
    }
}
