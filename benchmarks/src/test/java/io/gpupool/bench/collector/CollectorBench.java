package io.gpupool.bench.collector;

import io.gpupool.bench.BenchWorkDirectory;
import io.gpupool.localstack.LocalStack;
import io.gpupool.localstack.LocalStackSettings;
import io.gpupool.localstack.topics.TopicSetup;
import io.gpupool.topics.TopicCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * Runs {@link CollectorBenchmarks} against a fresh local stack from the module's test classpath
 * (the same figures as {@code gpupool bench collector}). Not a test: run it by hand, see README.
 *
 * <pre>
 * CollectorBench footprint [SYSFS_ROOT|-] [SECONDS] [JVM_FLAGS...]
 * CollectorBench fleet NODES [SECONDS] [JVM_FLAGS...]
 * </pre>
 */
public final class CollectorBench {
    private CollectorBench() {
    }

    public static void main(final String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: CollectorBench footprint SYSFS_ROOT|- [SECONDS] [JVM_FLAGS...] | fleet NODES [SECONDS] [JVM_FLAGS...]");
            System.exit(2);
        }
        final long seconds = args.length > 2 ? Long.parseLong(args[2]) : 60;
        final List<String> flags = args.length > 3 ? Arrays.asList(args).subList(3, args.length) : List.of();
        final Path work = Files.createTempDirectory("gpupool-collector-bench-");
        try (LocalStack stack = LocalStack.start(LocalStackSettings.defaults(work.resolve("stack")))) {
            final Properties admin = new Properties();
            admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers());
            try (Admin a = Admin.create(admin)) {
                new TopicSetup(a, Duration.ofSeconds(30)).apply(TopicCatalog.defaults().all(), false);
            }
            final String registry = stack.registryUrl().orElseThrow();
            final Map<String, String> figures = args[0].equals("fleet")
                    ? CollectorBenchmarks.fleet(stack.bootstrapServers(), registry, Integer.parseInt(args[1]), seconds, flags, System.err)
                    : CollectorBenchmarks.footprint(stack.bootstrapServers(), registry,
                            args[1].equals("-") ? null : Path.of(args[1]), seconds, flags, System.err);
            figures.forEach((k, v) -> System.out.println(k + "=" + v));
        } finally {
            BenchWorkDirectory.delete(work);
        }
    }
}
