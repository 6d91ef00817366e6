package io.gpupool.cli.submit;

import io.gpupool.avro.Evidence;
import io.gpupool.avro.NodeAssignment;
import io.gpupool.avro.PlacementDecision;
import java.io.PrintWriter;

/** A decision as {@code submit --wait} and {@code cancel --wait} print it: name=value lines, then the evidence. */
final class DecisionText {

    private DecisionText() {
    }

    static void print(final PrintWriter out, final PlacementDecision d) {
        out.printf("decision=%s%n", d.getOutcome());
        out.printf("decision_id=%s%n", d.getDecisionId());
        if (d.getReasonCode() != null) {
            out.printf("reason=%s%n", d.getReasonCode());
        }
        if (!d.getMessage().isEmpty()) {
            out.printf("message=%s%n", d.getMessage());
        }
        for (final NodeAssignment a : d.getAssignments()) {
            final StringBuilder gpus = new StringBuilder();
            a.getGpus().forEach(g -> gpus.append(gpus.length() == 0 ? "" : ",").append(g.getIndex())
                    .append(g.getMilli() < 1000 ? "@" + g.getMilli() + "m" : ""));
            out.printf("node=%s gpus=%s%n", a.getNodeId(), gpus);
        }
        if (d.getScore() != null) {
            out.printf("score=%.3f%n", d.getScore());
        }
        if (d.getQueuePosition() != null) {
            out.printf("queue_position=%d%n", d.getQueuePosition());
        }
        for (final Evidence e : d.getEvidence()) {
            out.printf("evidence %s: %s%n", e.getSubject(), e.getDetail());
        }
        out.flush();
    }
}
