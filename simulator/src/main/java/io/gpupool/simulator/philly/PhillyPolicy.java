package io.gpupool.simulator.philly;

import java.util.List;
import java.util.Locale;

/**
 * A queue policy the Philly protocol can run, by the name the user gives.
 *
 * @param enginePolicy the policy name handed to the engine
 * @param oracleRuntimes whether the engine is told each job's true duration as its runtime
 *        estimate: only for published comparison baselines (SJF), never for our own policy
 * @param sharedPool all virtual clusters in one pool, each a tenant with its VC size as quota
 *        (fair share across VCs); otherwise each VC is its own pool, as in Helios
 */
public record PhillyPolicy(String name, String enginePolicy, boolean oracleRuntimes, boolean sharedPool, String description) {

    public static final PhillyPolicy FIFO = new PhillyPolicy("fifo", "fifo", false, false,
            "first in, first out; the head of the queue blocks the rest (Helios's FIFO)");
    public static final PhillyPolicy SJF = new PhillyPolicy("sjf", "sjf", true, false,
            "shortest job first on the TRUE durations (oracle, as Helios's SJF): a bound, not a deployable policy");
    public static final PhillyPolicy BACKFILL = new PhillyPolicy("backfill", "full", false, false,
            "each VC its own pool as in Helios, EASY backfill behind the head-of-queue reservation on runtime estimates "
                    + "learned from finished jobs (per VC and GPU count); no oracle durations: isolates what backfill alone gives");
    public static final PhillyPolicy FULL = new PhillyPolicy("full", "full", false, true,
            "our policy: fair share across virtual clusters (VC size = guaranteed quota, idle quota borrowable) "
                    + "and EASY backfill on runtime estimates learned from finished jobs; no oracle durations");

    public static final List<PhillyPolicy> KNOWN = List.of(FIFO, SJF, BACKFILL, FULL);

    public static PhillyPolicy named(final String name) {
        final String key = name.trim().toLowerCase(Locale.ROOT);
        return KNOWN.stream().filter(p -> p.name().equals(key)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown Philly policy '" + name + "'; known: "
                        + KNOWN.stream().map(PhillyPolicy::name).toList()));
    }
}
