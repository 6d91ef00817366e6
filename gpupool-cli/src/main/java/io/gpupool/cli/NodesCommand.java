package io.gpupool.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.cli.view.HumanTime;
import io.gpupool.cli.view.JobCells;
import io.gpupool.cli.view.OutputOptions;
import io.gpupool.cli.view.Screen;
import io.gpupool.cli.view.Table;
import io.gpupool.scheduler.query.QueryClient;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code gpupool nodes}: per node, GPUs free, allocated, busy and unhealthy (with why), its leaf and fabric. */
@Command(name = "nodes", mixinStandardHelpOptions = true,
        description = "Lists nodes: GPUs free / allocated / busy / unhealthy (with the reason), leaf, fabric, jobs.")
public final class NodesCommand implements Callable<Integer>, Screen {
    /** Jobs named per node in a table (a node of shares can hold dozens); -o wide names them all. */
    private static final int JOBS_SHOWN = 2;

    @Mixin
    SchedulerEndpointOption endpoint;

    @Mixin
    OutputOptions output;

    @Option(names = "--pool", description = "Only this pool.")
    String pool;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        return output.show("gpupool nodes", this, new QueryClient(endpoint.baseUrl()), spec.commandLine());
    }

    @Override
    public JsonNode fetch(final QueryClient scheduler) {
        return scheduler.nodes(pool);
    }

    @Override
    public void print(final JsonNode nodes, final boolean wide, final HumanTime time, final PrintWriter out) {
        final Table t = new Table().column("NODE").column("POOL").column("LEAF").wideColumn("SPINE").column("FABRIC")
                .column("MODEL").column("GPUS").column("FREE").column("ALLOC").column("BUSY").column("UNHEALTHY")
                .wideColumn("CPU_FREE").wideColumn("MEM_FREE").wideColumn("TELEMETRY").column("JOBS").column("REASON");
        final List<JsonNode> sorted = new ArrayList<>();
        nodes.forEach(sorted::add);
        sorted.sort(Comparator.comparing((JsonNode n) -> n.path("pool").asText()).thenComparing(n -> n.path("nodeId").asText()));
        for (final JsonNode n : sorted) {
            final JsonNode c = n.path("gpuCounts");
            final List<String> jobs = new ArrayList<>();
            n.path("jobs").forEach(j -> jobs.add(j.asText()));
            t.row(n.path("nodeId").asText(), n.path("pool").asText(), n.path("leaf").asText(), n.path("spine").asText(),
                    n.path("fabric").asText(), n.path("model").asText("-"), c.path("total").asText(),
                    c.path("free").asText(), c.path("allocated").asText(), c.path("busy").asText(),
                    c.path("unhealthy").asText(), n.path("cpuMilliFree").asLong() / 1000 + " cpu",
                    n.path("memoryMibFree").asLong() / 1024 + " GiB",
                    JobCells.relative(JobCells.time(n, "lastTelemetryMs"), time),
                    jobs(jobs, wide), why(n));
        }
        if (t.isEmpty()) {
            out.println("no nodes" + (pool == null ? "" : " in pool " + pool) + " (no inventory received yet?)");
            return;
        }
        t.print(out, wide);
    }

    /** The node's jobs: all of them when wide, else the first {@value #JOBS_SHOWN} and how many more. */
    private static String jobs(final List<String> jobs, final boolean wide) {
        if (jobs.isEmpty()) {
            return "-";
        }
        if (wide || jobs.size() <= JOBS_SHOWN) {
            return String.join(",", jobs);
        }
        return String.join(",", jobs.subList(0, JOBS_SHOWN)) + " +" + (jobs.size() - JOBS_SHOWN);
    }

    /** Why capacity is missing: unhealthy GPUs and fabric ports that are down or flapping; "-" when none. */
    private static String why(final JsonNode n) {
        final List<String> why = new ArrayList<>();
        n.path("gpuCounts").path("unhealthyReasons").forEach(r -> why.add(r.asText()));
        for (final Iterator<Map.Entry<String, JsonNode>> it = n.path("badLinks").fields(); it.hasNext(); ) {
            final Map.Entry<String, JsonNode> e = it.next();
            why.add("port " + e.getKey() + ": " + e.getValue().asText());
        }
        return why.isEmpty() ? "-" : String.join("; ", why);
    }
}
