package io.gpupool.scheduler.audit;

import io.gpupool.scheduler.journal.JournalRecord;

import io.gpupool.avro.PlacementDecision;
import java.util.List;

/**
 * A recorded decision that the re-run engine did not make (or made differently), or one it made that
 * was never recorded. {@code recorded} or {@code recomputed} is null when the other side has no
 * counterpart.
 */
public record Divergence(JournalRecord entry, String decisionId, PlacementDecision recorded,
                         PlacementDecision recomputed, List<String> fieldDiffs) {

    public Divergence {
        fieldDiffs = List.copyOf(fieldDiffs);
    }

    public String describe() {
        final StringBuilder sb = new StringBuilder();
        sb.append("first divergence: decision ").append(decisionId).append('\n');
        appendEvidence(sb, entry, recorded, recomputed, fieldDiffs);
        return sb.toString();
    }

    /** The lines under a divergence's headline: its journal entry, both sides and the fields that differ. */
    static void appendEvidence(final StringBuilder sb, final JournalRecord entry, final Object recorded,
                               final Object recomputed, final List<String> fieldDiffs) {
        sb.append("  caused by ").append(entry == null ? "an entry outside the audited range" : entry.describe())
                .append('\n');
        sb.append("  recorded:   ").append(recorded == null ? "(none)" : recorded).append('\n');
        sb.append("  recomputed: ").append(recomputed == null ? "(none)" : recomputed).append('\n');
        for (final String d : fieldDiffs) {
            sb.append("  differs in ").append(d).append('\n');
        }
    }
}
