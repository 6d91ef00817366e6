package io.gpupool.bench.pipeline;

import io.gpupool.localstack.LocalStack;
import io.gpupool.localstack.LocalStackSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * Runs {@link SoakBench} against a fresh local stack from the module's test classpath (the figures of
 * {@code gpupool bench soak}, without building the CLI jar). Not a test: run it by hand.
 *
 * <pre>
 * SoakBenchMain JOBS REPORT_EVERY [RETENTION_MS]
 * </pre>
 */
public final class SoakBenchMain {
    private SoakBenchMain() {
    }

    public static void main(final String[] args) throws Exception {
        final long jobs = Long.parseLong(args[0]);
        final long reportEvery = Long.parseLong(args[1]);
        final long retentionMs = args.length > 2 ? Long.parseLong(args[2]) : 30_000;
        final Path work = Files.createTempDirectory("gpupool-soak-");
        try (LocalStack stack = LocalStack.start(LocalStackSettings.defaults(work.resolve("stack")))) {
            final SoakBenchOptions o = new SoakBenchOptions(stack.bootstrapServers(), stack.registryUrl().orElseThrow(),
                    new Properties(), jobs, reportEvery, Math.max(1, reportEvery / 5), 512, 8, 16, 2_000, retentionMs,
                    work.resolve("state"));
            SoakBench.run(o, System.err).forEach((k, v) -> System.out.println(k + "=" + v));
        }
    }
}
