package io.gpupool.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.gpupool.cli.config.DurationConverter;
import io.gpupool.cli.view.HumanTime;
import io.gpupool.cli.view.JobCells;
import io.gpupool.cli.view.OutputOptions;
import io.gpupool.cli.view.Screen;
import io.gpupool.cli.view.Table;
import io.gpupool.scheduler.query.QueryClient;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code gpupool jobs}: running, queued and recently finished jobs, the squeue of gpupool. */
@Command(name = "jobs", mixinStandardHelpOptions = true,
        description = "Lists running, queued and recently finished jobs: where each runs, how long it waited or ran, "
                + "when a queued one is expected to start and why it waits.")
public final class JobsCommand implements Callable<Integer>, Screen {

    @Mixin
    SchedulerEndpointOption endpoint;

    @Mixin
    OutputOptions output;

    @Option(names = "--state", paramLabel = "STATES", defaultValue = "all",
            description = "queued, running (placed or running), finished, or all (default); comma-separated.")
    String state;

    @Option(names = "--pool", description = "Only this pool.")
    String pool;

    @Option(names = "--tenant", description = "Only this tenant.")
    String tenant;

    @Option(names = "--node", description = "Only jobs with a part on this node.")
    String node;

    @Option(names = "--finished-within", paramLabel = "TIME", defaultValue = "1h", converter = DurationConverter.class,
            description = "Finished jobs that ended at most this long ago (default ${DEFAULT-VALUE}); the scheduler keeps "
                    + "the last finished-jobs-retained (10,000).")
    Duration finishedWithin;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        return output.show("gpupool jobs", this, new QueryClient(endpoint.baseUrl()), spec.commandLine());
    }

    @Override
    public JsonNode fetch(final QueryClient scheduler) {
        final JsonNode all = scheduler.jobs(state, pool, tenant, node);
        final long since = System.currentTimeMillis() - finishedWithin.toMillis();
        final ArrayNode kept = JsonNodeFactory.instance.arrayNode();
        for (final JsonNode j : all) {
            final Long ended = JobCells.time(j, "endedMs");
            if (ended == null || ended >= since) {
                kept.add(j);
            }
        }
        return kept;
    }

    @Override
    public void print(final JsonNode jobs, final boolean wide, final HumanTime time, final PrintWriter out) {
        final Table t = new Table().column("JOBID").column("POOL").column("TENANT").wideColumn("CLASS").wideColumn("PRIO")
                .column("STATE").column("AGE").column("ELAPSED").column("START").wideColumn("SUBMITTED")
                .wideColumn("EXPECTED_END").column("NODES:GPUS").column("REASON");
        for (final JsonNode j : jobs) {
            final boolean queued = "queued".equals(j.path("state").asText());
            final Long start = queued ? JobCells.time(j, "expectedStartMs") : JobCells.started(j);
            final String reason = JobCells.reason(j, time);
            t.row(j.path("jobId").asText(), j.path("pool").asText(), j.path("tenant").asText(),
                    j.path("priorityClass").asText(), j.path("priority").asText(), j.path("state").asText(),
                    JobCells.relative(JobCells.time(j, "submittedMs"), time).replace(" ago", ""),
                    JobCells.elapsed(j, time), JobCells.relative(start, time),
                    JobCells.local(JobCells.time(j, "submittedMs"), time),
                    JobCells.relative(JobCells.time(j, "expectedEndMs"), time), JobCells.placement(j),
                    queued || wide ? reason : reason.split(":", 2)[0]);
        }
        if (t.isEmpty()) {
            out.println("no jobs" + (state.equals("all") ? "" : " in state " + state));
            return;
        }
        t.print(out, wide);
    }
}
