package io.gpupool.cli;

import io.gpupool.cli.config.ExitCodes;
import io.gpupool.simulator.FgdSimulation;
import io.gpupool.simulator.PhillySimulation;
import io.gpupool.simulator.fgd.ArrivalOrder;
import io.gpupool.simulator.philly.PhillyPolicy;
import io.gpupool.simulator.pool.EnginePool;
import io.gpupool.simulator.trace.TraceFormatException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/** {@code gpupool simulate}: drives the placement engine over a real trace in simulated time. */
@Command(name = "simulate", mixinStandardHelpOptions = true,
        description = {
            "Runs the placement engine over a cluster trace in simulated time and compares policies with published results.",
            "  --protocol fgd: Alibaba 2023 openb pod/node lists, FGD's protocol (place on arrival or fail, to 130%% demand).",
            "  --protocol philly: Philly trace, each virtual cluster a pool of 8-GPU nodes, jobs queue and run their duration.",
            "Writes CSV, summary.md and PNG charts to --out; prints one name=value line per policy on stdout."})
public final class SimulateCommand implements Callable<Integer> {

    enum Protocol { fgd, philly }

    @Option(names = "--protocol", required = true, description = "fgd or philly")
    Protocol protocol;

    @Option(names = "--pods", description = "fgd: openb_pod_list_*.csv")
    Path pods;

    @Option(names = "--nodes", description = "fgd: openb_node_list_*.csv")
    Path nodes;

    @Option(names = "--seeds", defaultValue = "10", description = "fgd: number of seeds (0..N-1), default ${DEFAULT-VALUE}")
    int seeds;

    @Option(names = "--order", defaultValue = "shuffled",
            description = "fgd: arrival order before inflation: shuffled (FGD's published runs) or trace; default ${DEFAULT-VALUE}")
    String order;

    @Option(names = "--trace", description = "philly: philly-pollux.csv")
    Path trace;

    @Option(names = "--from", defaultValue = "2017-10-01", description = "philly: first submission day (UTC), default ${DEFAULT-VALUE}")
    LocalDate from;

    @Option(names = "--until", defaultValue = "2017-11-30", description = "philly: last submission day, inclusive (UTC), default ${DEFAULT-VALUE}")
    LocalDate until;

    @Option(names = "--vc-sizes", defaultValue = "helios",
            description = "philly: helios (Helios's Philly table, default), demand (every VC sized from its own demand), or a 'vc,node num' CSV")
    String vcSizes;

    @Option(names = "--policies", split = ",",
            description = "policies side by side; fgd default: fgd,best-fit,first-fit; philly default: fifo,sjf,backfill,full")
    List<String> policies;

    @Option(names = "--set", description = "engine setting key=value applied to every simulated pool (as replay --set), repeatable")
    Map<String, String> engineSettings = new LinkedHashMap<>();

    @Option(names = "--threads", defaultValue = "2", description = "independent runs in parallel, default ${DEFAULT-VALUE}")
    int threads;

    @Option(names = "--out", defaultValue = "simulate-out", description = "output folder, default ${DEFAULT-VALUE}")
    Path out;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        try {
            final long started = System.nanoTime();
            final List<String> lines = switch (protocol) {
                case fgd -> runFgd();
                case philly -> runPhilly();
            };
            lines.forEach(spec.commandLine().getOut()::println);
            // Wall-clock speed of the whole run (reading, simulating, writing reports), for the speed target.
            spec.commandLine().getOut().println(String.format(Locale.ROOT, "protocol=%s policies=%d threads=%d elapsed_s=%.1f",
                    protocol, lines.size(), threads, (System.nanoTime() - started) / 1e9));
            spec.commandLine().getOut().flush();
            System.err.println("wrote " + out.toAbsolutePath() + "/summary.md");
            return 0;
        } catch (TraceFormatException | IllegalArgumentException | UncheckedIOException e) {
            System.err.println("gpupool simulate: " + e.getMessage());
            return ExitCodes.USAGE.code();
        }
    }

    private List<String> runFgd() {
        if (pods == null || nodes == null) {
            throw new IllegalArgumentException("--protocol fgd needs --pods and --nodes");
        }
        final List<String> chosen = policies == null ? List.of("fgd", "best-fit", "first-fit") : policies;
        for (String policy : chosen) {
            if (!EnginePool.SCORING_POLICIES.contains(policy)) {
                throw new IllegalArgumentException("the engine has no placement policy '" + policy + "'; it has " + EnginePool.SCORING_POLICIES);
            }
        }
        final ArrivalOrder arrivalOrder = switch (order) {
            case "shuffled" -> ArrivalOrder.SHUFFLED;
            case "trace" -> ArrivalOrder.TRACE;
            default -> throw new IllegalArgumentException("--order must be shuffled or trace, was " + order);
        };
        return FgdSimulation.run(EnginePool::new, pods, nodes, chosen, seeds, arrivalOrder, threads, engineSettings, out, System.err);
    }

    private List<String> runPhilly() {
        if (trace == null) {
            throw new IllegalArgumentException("--protocol philly needs --trace");
        }
        final List<PhillyPolicy> chosen = (policies == null ? List.of("fifo", "sjf", "backfill", "full") : policies).stream()
                .map(PhillyPolicy::named).toList();
        final Instant start = from.atStartOfDay(ZoneOffset.UTC).toInstant();
        final Instant end = until.plusDays(1).atStartOfDay(ZoneOffset.UTC).toInstant();
        final PhillySimulation.Sizing sizing = switch (vcSizes) {
            case "helios" -> PhillySimulation.Sizing.helios();
            case "demand" -> PhillySimulation.Sizing.demand();
            default -> PhillySimulation.Sizing.file(Path.of(vcSizes));
        };
        return PhillySimulation.run(EnginePool::new, trace, start, end, sizing, chosen, threads, engineSettings, out, System.err);
    }
}
