package io.gpupool.bench.pipeline;

import java.nio.file.Path;
import java.util.Properties;

/**
 * What {@code gpupool bench pipeline} runs.
 *
 * @param rate               job requests offered per second (open loop) in a fixed-rate run, without {@code findMax}
 * @param warmupS            seconds of load before each measured window (JIT, caches); the rate ramps up over its first half
 * @param measureS           seconds of each measured window (a search step or the fixed-rate run)
 * @param jobRuntimeMs       how long the bench (acting as the sink) lets a placed job run before it completes
 * @param passthroughRecords records the pass-through app is timed on
 * @param drainRecords       job requests the scheduler drain is timed on
 * @param findMax            search for the highest offered rate whose p99 stays within {@code p99TargetMs}
 * @param p99TargetMs        the latency a rate must hold to count in the search
 * @param searchSteps        measured windows the search may spend at most
 * @param overloadS          seconds offered twice the found (or fixed) rate; 0 leaves the overload phase out
 * @param repeat             whole runs, each on its own topics; figures then come as min/median/max
 * @param jitWarmupS         seconds of load at most, before the first measured window, for the JIT to settle (0: none)
 * @param shedJournalBacklog the paced scheduler's limit on its journal backlog before it sheds submits (0: never);
 *                           the drain never sheds: it measures the ceiling of deciding a whole backlog
 * @param snapshotEvery      the bench schedulers' {@code --snapshot-every}: journal entries between two engine
 *                           snapshots of a pool at most (the scheduler's default unless asked otherwise)
 */
public record PipelineBenchOptions(String bootstrapServers, String registryUrl, Properties clientOverrides, int nodes,
                                   int gpusPerNode, int leaves, int rate, int warmupS, int measureS, long jobRuntimeMs,
                                   int passthroughRecords, int drainRecords, Path stateDir, boolean findMax,
                                   long p99TargetMs, int searchSteps, int overloadS, int repeat,
                                   int jitWarmupS, long shedJournalBacklog, int snapshotEvery) {
    public PipelineBenchOptions {
        if (nodes < 1 || gpusPerNode < 1 || leaves < 1 || rate < 1 || warmupS < 0 || measureS < 1 || jobRuntimeMs < 0
                || passthroughRecords < 1 || drainRecords < 1) {
            throw new IllegalArgumentException("nodes, GPUs, leaves, rate, measure seconds, pass-through and drain records must be"
                    + " positive; warm-up and job runtime must not be negative");
        }
        if (p99TargetMs < 1 || searchSteps < 1 || overloadS < 0 || repeat < 1 || jitWarmupS < 0 || shedJournalBacklog < 0) {
            throw new IllegalArgumentException("the p99 target, search steps and repeat must be positive; the overload"
                    + " and JIT warm-up seconds and the journal backlog limit must not be negative");
        }
        if (snapshotEvery < 1) {
            throw new IllegalArgumentException("--snapshot-every must be at least 1 journal entry between two snapshots, not "
                    + snapshotEvery);
        }
    }

    /** How long the 0.5x load after the overload may take to clear its backlog before the run says it did not recover. */
    long recoveryLimitMs() {
        return Math.max(30_000L, 4_000L * overloadS);
    }
}
