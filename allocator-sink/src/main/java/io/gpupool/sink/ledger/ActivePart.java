package io.gpupool.sink.ledger;

import io.gpupool.sink.apply.JobPart;
import java.util.Optional;

/**
 * A part the ledger says was allocated and not yet settled: what a restarted sink must resume
 * (or, when a stop command was already applied, finish stopping).
 *
 * @param pid             the process recorded at start, -1 when none (or not started yet)
 * @param startedAtMillis when it started (the process start for exec), else when it was applied
 * @param pendingStop     the EVICT or RELEASE already applied to it whose stop may not have finished
 * @param outcome         how it ended, when that was recorded but its event may not have reached Kafka
 */
public record ActivePart(JobPart part, long pid, long startedAtMillis, Optional<PendingStop> pendingStop,
                         Optional<LedgerEntry.Event> outcome) {

    /** A stop command applied to the part; {@code placementId} is the placement it named (null: none). */
    public record PendingStop(String commandId, String type, String decisionId, String placementId, String reason) {
    }
}
