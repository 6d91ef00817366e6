package io.gpupool.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.cli.view.HumanTime;
import io.gpupool.cli.view.JobCells;
import io.gpupool.cli.view.OutputOptions;
import io.gpupool.cli.view.Screen;
import io.gpupool.cli.view.Table;
import io.gpupool.scheduler.query.QueryClient;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code gpupool queue}: waiting jobs, squeue-like, with the reason each one waits. */
@Command(name = "queue", mixinStandardHelpOptions = true,
        description = "Lists waiting jobs in the order the queue policy considers them, with the reason each waits.")
public final class QueueCommand implements Callable<Integer>, Screen {

    @Mixin
    SchedulerEndpointOption endpoint;

    @Mixin
    OutputOptions output;

    @Option(names = "--pool", description = "Only this pool.")
    String pool;

    @Option(names = "--tenant", description = "Only this tenant.")
    String tenant;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        return output.show("gpupool queue", this, new QueryClient(endpoint.baseUrl()), spec.commandLine());
    }

    @Override
    public JsonNode fetch(final QueryClient scheduler) {
        return scheduler.jobs("queued", pool, tenant, null);
    }

    @Override
    public void print(final JsonNode jobs, final boolean wide, final HumanTime time, final PrintWriter out) {
        final Table t = new Table().column("JOBID").column("POOL").column("TENANT").column("CLASS").column("PRIO")
                .column("STATE").column("WAITING").wideColumn("SUBMITTED").column("EXPECTED_START").column("REASON");
        for (final JsonNode j : jobs) {
            final Long submitted = JobCells.time(j, "submittedMs");
            t.row(j.path("jobId").asText(), j.path("pool").asText(), j.path("tenant").asText(),
                    j.path("priorityClass").asText(), j.path("priority").asText(), j.path("state").asText(),
                    submitted == null ? "-" : time.since(submitted), JobCells.local(submitted, time),
                    JobCells.relative(JobCells.time(j, "expectedStartMs"), time), JobCells.reason(j, time));
        }
        t.print(out, wide);
    }
}
