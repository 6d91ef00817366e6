package io.gpupool.cli;

import io.gpupool.cli.config.DataDirOption;
import io.gpupool.bench.collector.CollectorBenchmarks;
import io.gpupool.localstack.LocalStack;
import io.gpupool.localstack.StackHandle;
import io.gpupool.localstack.topics.TopicSetup;
import io.gpupool.topics.TopicCatalog;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gpupool bench collector}: the collector's footprint and the simulated fleet's throughput. */
@Command(name = "collector", mixinStandardHelpOptions = true,
        description = {
            "footprint: a live collector (8 GPUs through a child-process nvidia-smi stand-in, the HCAs of --sysfs-root or",
            "  8 generated NDR ports) polling once per second and publishing to the local stack; prints CPU %% of one core",
            "  (own, and with its child processes) and RSS of the collector's JVM, measured from /proc.",
            "fleet: one process publishing --nodes simulated nodes at 1 Hz; prints records/s, late and skipped ticks, drops,",
            "  CPU and RSS.",
            "Each target runs in its own JVM with --jvm-flag flags. Uses the stack in --data-dir, or starts one there."})
public final class CollectorBenchCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "WHICH", description = "footprint or fleet")
    String which;

    @Option(names = "--seconds", defaultValue = "60", description = "Measured window after warm-up (default ${DEFAULT-VALUE}).")
    long seconds;

    @Option(names = "--nodes", defaultValue = "4096", description = "fleet: simulated nodes (default ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--sysfs-root", paramLabel = "DIR", description = "footprint: a /sys/class/infiniband tree to read (default: 8 generated ports).")
    Path sysfsRoot;

    @Option(names = "--jvm-flag", paramLabel = "FLAG", description = "JVM flag of the measured process; repeatable. "
            + "Default for footprint: -Xmx48m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xss512k; for fleet: -Xmx1g -XX:+UseParallelGC.")
    List<String> jvmFlags = new ArrayList<>();

    @Mixin
    DataDirOption dataDir;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (!which.equals("footprint") && !which.equals("fleet")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "unknown benchmark '" + which + "': use footprint or fleet");
        }
        if (sysfsRoot != null && !Files.isDirectory(sysfsRoot)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--sysfs-root " + sysfsRoot + " is not a directory");
        }
        if (seconds < 5) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--seconds " + seconds + " is too short to measure: use 5 or more");
        }
        final List<String> flags = !jvmFlags.isEmpty() ? jvmFlags : which.equals("fleet")
                ? List.of("-Xmx1g", "-XX:+UseParallelGC") : List.of("-Xmx48m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss512k");
        try (StackHandle stack = LocalStack.connectOrStart(dataDir.path())) {
            final Properties admin = new Properties();
            admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers());
            try (Admin a = Admin.create(admin)) {
                new TopicSetup(a, Duration.ofSeconds(30)).apply(TopicCatalog.defaults().all(), false);
            }
            final String registry = stack.registryUrl().orElseThrow(() -> new CommandLine.PicocliException(
                    "the local stack in " + dataDir.path() + " runs without a schema registry"));
            final Map<String, String> figures = which.equals("fleet")
                    ? CollectorBenchmarks.fleet(stack.bootstrapServers(), registry, nodes, seconds, flags, System.err)
                    : CollectorBenchmarks.footprint(stack.bootstrapServers(), registry, sysfsRoot, seconds, flags, System.err);
            final PrintWriter out = spec.commandLine().getOut();
            out.println("jvm_flags=" + String.join(" ", flags).replace(' ', '_'));
            figures.forEach((k, v) -> out.println(k + "=" + v));
            out.flush();
        }
        return 0;
    }
}
