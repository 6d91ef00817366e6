package io.gpupool.cli.submit;

import io.gpupool.cli.config.DurationConverter;
import java.time.Duration;
import picocli.CommandLine.Option;

/** {@code --wait} and {@code --timeout}: whether a command that sends a job command waits for its decision. */
public final class DecisionWait {
    @Option(names = "--wait", description = "Wait for the scheduler's decision and print it.")
    public boolean await;

    @Option(names = "--timeout", paramLabel = "TIME", defaultValue = "60s", converter = DurationConverter.class,
            description = "With --wait: how long to wait (default ${DEFAULT-VALUE}).")
    public Duration timeout;
}
