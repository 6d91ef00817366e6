package io.gpupool.bench.restart;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;

/**
 * What {@link RestartBench} runs.
 *
 * @param kills        SIGKILLs of the scheduler, each followed by a restart on the same state directory
 * @param nodes        nodes of 8 GPUs in the bench's pool (a simulated fleet publishing telemetry)
 * @param rate         jobs submitted per second, all through the run
 * @param warmup       load before the first kill
 * @param betweenKills load between a restart's first new decision and the next kill
 * @param stateDir     where the scheduler's state directory, the sink's ledger and the scheduler's log go
 */
public record RestartBenchOptions(String bootstrapServers, String registryUrl, Properties clientOverrides, int kills,
                                  int nodes, int rate, Duration warmup, Duration betweenKills, Path stateDir) {
    public RestartBenchOptions {
        if (kills < 1 || nodes < 1 || rate < 1 || warmup.isNegative() || betweenKills.isNegative()) {
            throw new IllegalArgumentException("kills, nodes and rate must be at least 1, the waits not negative");
        }
    }
}
