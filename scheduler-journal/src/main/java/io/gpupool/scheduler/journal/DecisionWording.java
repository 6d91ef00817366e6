package io.gpupool.scheduler.journal;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.GpuAssignment;
import io.gpupool.avro.NodeAssignment;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.core.DecimalText;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * A recorded decision's message as people read it. The PLACED message recorded by the engine says "node" for
 * the leaf it names ("placed on n3 (node leaf-a)") and gives the engine's lower-is-better score, while the
 * decision's {@code score} field is higher-is-better; the message is part of what an audit compares byte for
 * byte, so recordings keep it as it was and it is worded again here, for display only: the placement from the
 * decision's assignments (node, GPU indexes, leaf and spine), the score as the field has it, then whatever the
 * engine added after the score (whom it preempted, congested uplinks). Other decisions read as recorded.
 */
public final class DecisionWording {
    private static final int NODES_SHOWN = 4;

    private DecisionWording() {
    }

    public static String message(final PlacementDecision d) {
        final String recorded = d.getMessage();
        if (d.getOutcome() != DecisionOutcome.PLACED || d.getAssignments().isEmpty() || !recorded.startsWith("placed on ")) {
            return recorded;
        }
        final List<NodeAssignment> parts = d.getAssignments();
        final StringBuilder b = new StringBuilder(96).append("placed on ");
        if (parts.size() == 1) {
            b.append(parts.get(0).getNodeId()).append(' ').append(gpus(parts.get(0)));
        } else {
            for (int i = 0; i < Math.min(NODES_SHOWN, parts.size()); i++) {
                b.append(i == 0 ? "" : ", ").append(parts.get(i).getNodeId());
            }
            if (parts.size() > NODES_SHOWN) {
                b.append(" and ").append(parts.size() - NODES_SHOWN).append(" more");
            }
            b.append(", ").append(gpus(parts.get(0))).append(" each");
        }
        b.append(" (").append(where(parts)).append(')');
        if (d.getPolicy() != null && !d.getPolicy().isEmpty()) {
            b.append(" by ").append(d.getPolicy());
        }
        if (d.getScore() != null) {
            b.append(", score ").append(score(d.getScore())).append(" (higher is better)");
        }
        final int scoreAt = recorded.indexOf(", score ");
        final int note = scoreAt < 0 ? -1 : recorded.indexOf("; ", scoreAt);
        return note < 0 ? b.toString() : b.append(recorded, note, recorded.length()).toString();
    }

    /** The score in the fewest digits that read back ({@link DecimalText}), whole ones without ".0", never "-0". */
    public static String score(final double score) {
        final String t = DecimalText.of(score == 0 ? 0.0 : score);
        return t.endsWith(".0") ? t.substring(0, t.length() - 2) : t;
    }

    /** "GPU 3", "GPUs 0-3", "GPUs 0,2,5", "GPU 1 (250 milli)". */
    private static String gpus(final NodeAssignment a) {
        final List<Integer> idx = new ArrayList<>();
        for (final GpuAssignment g : a.getGpus()) {
            idx.add(g.getIndex());
        }
        final boolean share = a.getGpus().size() == 1 && a.getGpus().get(0).getMilli() < 1000;
        final String list = idx.size() > 2 && idx.get(idx.size() - 1) - idx.get(0) == idx.size() - 1
                ? idx.get(0) + "-" + idx.get(idx.size() - 1) : String.join(",", idx.stream().map(String::valueOf).toList());
        return (idx.size() == 1 ? "GPU " : "GPUs ") + list
                + (share ? " (" + a.getGpus().get(0).getMilli() + " milli)" : "");
    }

    /** One node and its leaf, one leaf, one spine, or how many spines the placement spans. */
    private static String where(final List<NodeAssignment> parts) {
        final TreeSet<String> leaves = new TreeSet<>();
        final TreeSet<String> spines = new TreeSet<>();
        for (final NodeAssignment a : parts) {
            leaves.add(a.getLeaf() == null ? "?" : a.getLeaf());
            spines.add(a.getSpine() == null ? "?" : a.getSpine());
        }
        if (parts.size() == 1) {
            return "one node, leaf " + leaves.first();
        }
        if (leaves.size() == 1) {
            return "one leaf, " + leaves.first();
        }
        return spines.size() == 1 ? "one spine, " + spines.first() + ", " + leaves.size() + " leaves"
                : spines.size() + " spines, " + leaves.size() + " leaves";
    }
}
