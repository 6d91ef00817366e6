package io.gpupool.cli;

import io.gpupool.cli.config.ExitCodes;
import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.scheduler.query.QueryClient;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code gpupool queue}: waiting jobs, squeue-like, with the reason each one waits. */
@Command(name = "queue", mixinStandardHelpOptions = true,
        description = "Lists waiting jobs in the order the queue policy considers them, with the reason each waits.")
public final class QueueCommand implements Callable<Integer> {

    @Mixin
    SchedulerEndpointOption endpoint;

    @Option(names = "--pool", description = "Only this pool.")
    String pool;

    @Option(names = "--tenant", description = "Only this tenant.")
    String tenant;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        final JsonNode jobs;
        try {
            jobs = new QueryClient(endpoint.baseUrl()).queued();
        } catch (QueryClient.QueryException e) {
            spec.commandLine().getErr().println("gpupool queue: " + e.getMessage());
            return ExitCodes.forQuery(e.status()).code();
        }
        final List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"JOBID", "POOL", "TENANT", "CLASS", "PRIO", "STATE", "SUBMITTED_MS", "REASON"});
        for (final JsonNode j : jobs) {
            if ((pool != null && !pool.equals(j.path("pool").asText())) || (tenant != null && !tenant.equals(j.path("tenant").asText()))) {
                continue;
            }
            rows.add(new String[] {j.path("jobId").asText(), j.path("pool").asText(), j.path("tenant").asText(),
                    j.path("priorityClass").asText(), j.path("priority").asText(), j.path("state").asText(),
                    j.path("submittedMs").asText(),
                    j.path("reason").path("code").asText("") + ": " + j.path("reason").path("message").asText("")});
        }
        print(spec.commandLine().getOut(), rows);
        return 0;
    }

    /** Columns padded to their widest cell; the last column is not padded. */
    static void print(final PrintWriter out, final List<String[]> rows) {
        final int cols = rows.get(0).length;
        final int[] width = new int[cols];
        for (final String[] r : rows) {
            for (int c = 0; c < cols; c++) {
                width[c] = Math.max(width[c], r[c].length());
            }
        }
        for (final String[] r : rows) {
            final StringBuilder b = new StringBuilder();
            for (int c = 0; c < cols; c++) {
                b.append(c == cols - 1 ? r[c] : String.format("%-" + width[c] + "s  ", r[c]));
            }
            out.println(b.toString().stripTrailing());
        }
        out.flush();
    }
}
