package io.gpupool.scheduler.audit;

import io.gpupool.avro.PlacementDecision;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificRecord;

/** The fields in which two decisions (or node commands) differ, named, with both values: what an auditor reads first. */
final class DecisionDiff {
    private DecisionDiff() {
    }

    static List<String> of(final PlacementDecision recorded, final PlacementDecision recomputed) {
        return fields(recorded, recomputed);
    }

    /** The same for any two records of one Avro type (node commands). */
    static <T extends SpecificRecord> List<String> fields(final T recorded, final T recomputed) {
        final List<String> diffs = new ArrayList<>();
        if (recorded == null || recomputed == null) {
            return diffs;
        }
        for (final Schema.Field f : recorded.getSchema().getFields()) {
            final Object a = recorded.get(f.pos());
            final Object b = recomputed.get(f.pos());
            // Avro strings may be Utf8 or String: compare their text
            if (!Objects.equals(a == null ? null : a.toString(), b == null ? null : b.toString())) {
                diffs.add(f.name() + ": recorded=" + a + " recomputed=" + b);
            }
        }
        return diffs;
    }
}
