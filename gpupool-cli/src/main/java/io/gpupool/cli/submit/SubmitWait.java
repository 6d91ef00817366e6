package io.gpupool.cli.submit;

import io.gpupool.cli.config.DurationConverter;
import java.time.Duration;
import picocli.CommandLine.Option;

/** {@code submit --wait[=decided|started|finished]} and {@code --timeout}. */
public final class SubmitWait {
    @Option(names = "--wait", arity = "0..1", fallbackValue = "decided", paramLabel = "WHAT",
            description = "Wait and print the decision: --wait the first one (placed, queued or rejected); "
                    + "--wait=started until the job is placed; --wait=finished until it ends (exit 0 only if it completed).")
    String await;

    @Option(names = "--timeout", paramLabel = "TIME", defaultValue = "60s", converter = DurationConverter.class,
            description = "With --wait: how long to wait (default ${DEFAULT-VALUE}).")
    public Duration timeout;

    /** What to wait for; null: do not wait. */
    public WaitFor waitFor() {
        return await == null ? null : WaitFor.parse(await);
    }
}
