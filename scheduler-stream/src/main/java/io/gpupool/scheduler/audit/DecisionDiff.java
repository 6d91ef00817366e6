package io.gpupool.scheduler.audit;

import io.gpupool.avro.PlacementDecision;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.avro.Schema;

/** The fields in which two decisions differ, named, with both values: what an auditor reads first. */
final class DecisionDiff {
    private DecisionDiff() {
    }

    static List<String> of(final PlacementDecision recorded, final PlacementDecision recomputed) {
        final List<String> diffs = new ArrayList<>();
        if (recorded == null || recomputed == null) {
            return diffs;
        }
        for (final Schema.Field f : PlacementDecision.getClassSchema().getFields()) {
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
