package io.gpupool.cli.submit;

import io.gpupool.avro.Evidence;
import io.gpupool.avro.NodeAssignment;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.journal.DecisionWording;
import java.io.PrintWriter;

/** A decision as {@code submit --wait} and {@code cancel --wait} print it: name=value lines, then the evidence. */
final class DecisionText {

    private DecisionText() {
    }

    static void print(final PrintWriter out, final PlacementDecision d) {
        out.printf("decision=%s%n", d.getOutcome());
        out.printf("decision_id=%s%n", d.getDecisionId());
        if (d.getReasonCode() != null && !d.getReasonCode().equals(d.getOutcome().name())) {
            out.printf("reason=%s%n", d.getReasonCode()); // a PLACED decision's reason is PLACED: said once
        }
        if (!d.getMessage().isEmpty()) {
            out.printf("message=%s%n", DecisionWording.message(d));
        }
        for (final NodeAssignment a : d.getAssignments()) {
            final StringBuilder gpus = new StringBuilder();
            a.getGpus().forEach(g -> gpus.append(gpus.length() == 0 ? "" : ",").append(g.getIndex())
                    .append(g.getMilli() < 1000 ? "@" + g.getMilli() + "m" : ""));
            out.printf("node=%s gpu_indexes=%s%n", a.getNodeId(), gpus); // indexes on the node, not a count
        }
        if (d.getScore() != null) {
            out.printf("score=%s%n", DecisionWording.score(d.getScore())); // higher is better, as in the message
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
