package io.gpupool.scheduler.core;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The records a job keeps of what the engine decided about it, as snapshot bytes: its placement
 * parts, a reason (code, message, evidence in its order) and its last decision.
 */
final class SnapshotDecisions {
    private SnapshotDecisions() {
    }

    static void parts(final SnapshotOut out, final List<PlacementPart> parts) throws IOException {
        out.writeInt(parts.size());
        for (final PlacementPart a : parts) {
            out.str(a.nodeId());
            out.writeInt(a.gpus().size());
            for (final int g : a.gpus()) {
                out.writeInt(g);
            }
            out.writeInt(a.gpuMilli());
            out.writeLong(a.gpuMemoryMib());
            out.writeLong(a.cpuMilli());
            out.writeLong(a.memoryMib());
        }
    }

    static List<PlacementPart> readParts(final SnapshotIn in) throws IOException {
        final int n = in.readInt();
        final List<PlacementPart> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            final String node = in.str();
            final int g = in.readInt();
            final List<Integer> gpus = new ArrayList<>(g);
            for (int k = 0; k < g; k++) {
                gpus.add(in.readInt());
            }
            out.add(new PlacementPart(node, gpus, in.readInt(), in.readLong(), in.readLong(), in.readLong()));
        }
        return List.copyOf(out);
    }

    static void reason(final SnapshotOut out, final Reason r) throws IOException {
        out.constant(r.code());
        out.str(r.message());
        out.writeInt(r.evidence().size());
        for (final Map.Entry<String, String> e : r.evidence().entrySet()) {
            out.str(e.getKey());
            out.str(e.getValue());
        }
    }

    static Reason readReason(final SnapshotIn in) throws IOException {
        final ReasonCode code = in.constant(ReasonCode.class);
        final String msg = in.str();
        final int n = in.readInt();
        final Map<String, String> ev = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            ev.put(in.str(), in.str());
        }
        return new Reason(code, msg, ev);
    }

    static void decision(final SnapshotOut out, final Decision d) throws IOException {
        out.str(d.decisionId());
        out.writeLong(d.sequence());
        out.writeLong(d.timestampMs());
        out.str(d.jobId());
        out.constant(d.kind());
        parts(out, d.placement());
        out.writeDouble(d.score());
        out.str(d.policy());
        reason(out, d.reason());
        out.str(d.causedBy());
    }

    static Decision readDecision(final SnapshotIn in) throws IOException {
        return new Decision(in.str(), in.readLong(), in.readLong(), in.str(), in.constant(DecisionKind.class),
                readParts(in), in.readDouble(), in.str(), readReason(in), in.str());
    }
}
