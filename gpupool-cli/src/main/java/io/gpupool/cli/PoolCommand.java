package io.gpupool.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.gpupool.cli.view.HumanTime;
import io.gpupool.cli.view.OutputOptions;
import io.gpupool.cli.view.Screen;
import io.gpupool.cli.view.Table;
import io.gpupool.scheduler.query.QueryClient;
import java.io.PrintWriter;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code gpupool pool [POOL]}: capacity by GPU model, utilisation, and each tenant's usage against its quota. */
@Command(name = "pool", mixinStandardHelpOptions = true,
        description = "Shows a pool's capacity by GPU model, allocated and busy share, queue, and each tenant's GPUs "
                + "against its quota.")
public final class PoolCommand implements Callable<Integer>, Screen {

    @Mixin
    SchedulerEndpointOption endpoint;

    @Mixin
    OutputOptions output;

    @Parameters(paramLabel = "POOL", arity = "0..1", description = "The pool (default: every pool).")
    String pool;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        return output.show("gpupool pool", this, new QueryClient(endpoint.baseUrl()), spec.commandLine());
    }

    /** A list of pool answers, one per pool asked for. */
    @Override
    public JsonNode fetch(final QueryClient scheduler) {
        final ArrayNode pools = JsonNodeFactory.instance.arrayNode();
        if (pool != null) {
            pools.add(scheduler.pool(pool));
            return pools;
        }
        for (final JsonNode p : scheduler.pools()) {
            pools.add(scheduler.pool(p.asText()));
        }
        return pools;
    }

    @Override
    public void print(final JsonNode pools, final boolean wide, final HumanTime time, final PrintWriter out) {
        if (pools.isEmpty()) {
            out.println("no pools yet (no node inventory or job has reached the scheduler)");
            return;
        }
        boolean first = true;
        for (final JsonNode p : pools) {
            if (!first) {
                out.println();
            }
            first = false;
            final JsonNode g = p.path("gpus");
            final JsonNode use = p.path("utilisation");
            out.printf("pool %s: %d nodes, %d GPUs (%d allocatable, %d unhealthy); allocated %d (%s%%), busy %d (%s%%); "
                            + "%d queued; fragmentation %s%n",
                    p.path("pool").asText(), p.path("nodes").asInt(), g.path("total").asLong(),
                    g.path("allocatable").asLong(), g.path("unhealthy").asLong(), g.path("allocated").asLong(),
                    use.path("allocatedPct").asText(), g.path("busy").asLong(), use.path("busyPct").asText(),
                    p.path("queue").path("total").asInt(), String.format(Locale.ROOT, "%.3f", p.path("fragmentation").asDouble()));
            final Table models = new Table().column("MODEL").column("TOTAL").column("ALLOCATABLE").column("ALLOCATED")
                    .column("BUSY").column("FREE").column("UNHEALTHY").wideColumn("ALLOCATED_MILLI");
            for (final Iterator<Map.Entry<String, JsonNode>> it = g.path("byModel").fields(); it.hasNext(); ) {
                final Map.Entry<String, JsonNode> e = it.next();
                final JsonNode m = e.getValue();
                models.row(e.getKey(), m.path("total").asText(), m.path("allocatable").asText(),
                        m.path("allocated").asText(), m.path("busy").asText(), m.path("free").asText(),
                        m.path("unhealthy").asText(), m.path("allocatedMilli").asText());
            }
            if (!models.isEmpty()) {
                models.print(out, wide);
            }
            final Table tenants = new Table().column("TENANT").column("GPUS").column("RUNNING").column("QUEUED")
                    .column("GUARANTEED").column("MAX").wideColumn("WEIGHT");
            for (final JsonNode t : p.path("tenants")) {
                tenants.row(t.path("tenant").asText(), gpus(t.path("allocatedGpus").asDouble()),
                        t.path("runningJobs").asText(), t.path("queuedJobs").asText(), t.path("guaranteedGpus").asText(),
                        t.path("maxGpus").isNull() ? "-" : t.path("maxGpus").asText(), t.path("weight").asText());
            }
            if (!tenants.isEmpty()) {
                out.println();
                tenants.print(out, wide);
            }
            final JsonNode view = p.path("view");
            if (wide && !view.isMissingNode()) {
                out.printf("view: journal offset %s (placer at %s), %s old%n", view.path("journalOffset").asText(),
                        view.path("placerJournalOffset").asText(), HumanTime.duration(view.path("ageMs").asLong()));
            }
        }
    }

    /** GPUs held, whole when whole ("4"), else with the fraction ("2.25"). */
    private static String gpus(final double held) {
        return held == Math.rint(held) ? Long.toString((long) held) : String.format(Locale.ROOT, "%.2f", held);
    }
}
