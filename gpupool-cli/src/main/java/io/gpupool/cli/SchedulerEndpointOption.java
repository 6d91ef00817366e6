package io.gpupool.cli;

import io.gpupool.cli.config.DataDirOption;
import io.gpupool.cli.config.ExitCodes;
import io.gpupool.scheduler.query.QueryEndpoint;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code --scheduler-url}, or the scheduler of the local stack in {@code --data-dir}. */
public final class SchedulerEndpointOption {
    @Option(names = "--scheduler-url", paramLabel = "URL",
            description = "Query endpoint of a scheduler, e.g. http://host:8090. Default: the one running for the local "
                    + "stack in --data-dir. Env GPUPOOL_SCHEDULER_URL.")
    String url;

    @Mixin
    DataDirOption dataDir;

    String baseUrl() {
        if (url != null && !url.isBlank()) {
            return url.trim();
        }
        return QueryEndpoint.find(dataDir.path()).orElseThrow(() -> ExitCodes.NO_ANSWER.failure(
                "no scheduler runs for the local stack in " + dataDir.path() + ": start one with `gpupool up` or "
                        + "`gpupool scheduler --data-dir " + dataDir.path() + "`, or pass --scheduler-url URL"));
    }
}
