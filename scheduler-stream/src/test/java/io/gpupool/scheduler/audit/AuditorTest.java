package io.gpupool.scheduler.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.GpuAssignment;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobSubmit;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.NodeAssignment;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.core.EngineConfig;
import io.gpupool.scheduler.core.PoolEngine;
import io.gpupool.scheduler.stream.JournalApplier;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Audit over a recorded synthetic history: it passes untouched, and each kind of tampering is found and located. */
class AuditorTest {
    private static final EngineConfig CONFIG = EngineConfig.fromSettings(Map.of("pool", "p"));
    private static SyntheticHistory.Recording rec;

    @BeforeAll
    static void record() {
        rec = SyntheticHistory.record("p", 16, 20_000, 3, CONFIG);
    }

    private static AuditResult audit(final List<JournalRecord> journal, final List<PlacementDecision> decisions,
                                     final Map<String, EngineSnapshot> snapshots) {
        return new Auditor(p -> CONFIG, snapshots, AuditRange.ALL).run(journal.iterator(),
                RecordedDecisions.of(decisions));
    }

    @Test
    void theUntouchedHistoryPassesWithEveryDecisionMatched() {
        assertThat(rec.decisions().stream().map(PlacementDecision::getOutcome).distinct())
                .contains(DecisionOutcome.PLACED, DecisionOutcome.RELEASED, DecisionOutcome.QUEUED, DecisionOutcome.EVICTED);
        final AuditResult r = audit(rec.journal(), rec.decisions(), Map.of());
        final StringWriter out = new StringWriter();
        r.print(new PrintWriter(out));
        assertThat(r.replayed()).isEqualTo(rec.journal().size());
        assertThat(r.matched()).isEqualTo(rec.decisions().size());
        assertThat(r.divergent()).isZero();
        assertThat(r.violationCount()).as(out.toString()).isZero();
        assertThat(out.toString()).containsPattern("(?m)^replayed=20000 matched=\\d+ divergent=0 violations=0 entries_per_s=\\d+$");
    }

    @Test
    void aTamperedDecisionIsFoundAndLocated() {
        final List<PlacementDecision> tampered = new ArrayList<>(rec.decisions());
        int i = 0;
        while (tampered.get(i).getOutcome() != DecisionOutcome.PLACED || i < 200) {
            i++;
        }
        final PlacementDecision original = tampered.get(i);
        final PlacementDecision forged = PlacementDecision.newBuilder(original).build();
        final NodeAssignment a = NodeAssignment.newBuilder(forged.getAssignments().get(0)).build();
        final GpuAssignment g = GpuAssignment.newBuilder(a.getGpus().get(0)).build();
        g.setIndex((g.getIndex() + 1) % 8);
        a.getGpus().set(0, g);
        forged.getAssignments().set(0, a);
        tampered.set(i, forged);

        final AuditResult r = audit(rec.journal(), tampered, Map.of());
        assertThat(r.passed()).isFalse();
        assertThat(r.divergent()).isEqualTo(1);
        assertThat(r.firstDivergence().decisionId()).isEqualTo(original.getDecisionId().toString());
        assertThat(r.firstDivergence().entry().offset()).isEqualTo(original.getCause().getOffset());
        assertThat(r.firstDivergence().fieldDiffs()).singleElement().asString().startsWith("assignments:");
        final StringWriter out = new StringWriter();
        r.print(new PrintWriter(out));
        assertThat(out.toString()).contains("first divergence: decision " + original.getDecisionId(),
                "journal 0@" + original.getCause().getOffset(), "recorded:", "recomputed:");
    }

    @Test
    void aTamperedJournalEntryIsFoundAndLocated() {
        final List<JournalRecord> tampered = new ArrayList<>(rec.journal());
        int i = 5_000;
        JobSubmit submit = null;
        while (submit == null) {
            i++;
            if (tampered.get(i).entry().getPayload() instanceof JobCommand c && c.getCommand() instanceof JobSubmit s) {
                submit = s;
            }
        }
        final JournalEntry e = JournalEntry.newBuilder(tampered.get(i).entry()).build();
        final JobCommand c = JobCommand.newBuilder((JobCommand) e.getPayload()).build();
        final JobSubmit s = JobSubmit.newBuilder(submit).build();
        s.getRequest().setGpusPerNode(submit.getRequest().getGpusPerNode() == 8 ? 4 : 8);
        c.setCommand(s);
        e.setPayload(c);
        tampered.set(i, new JournalRecord(0, i, e));

        final AuditResult r = audit(tampered, rec.decisions(), Map.of());
        assertThat(r.passed()).isFalse();
        assertThat(r.firstDivergence().entry().offset()).isEqualTo(i);
        assertThat(r.firstDivergence().entry().entry()).isSameAs(e);
    }

    @Test
    void auditFromASnapshotReplaysOnlyTheRestAndStillFindsTampering() {
        final int at = 12_345;
        final PoolEngine engine = new PoolEngine(CONFIG);
        final JournalApplier applier = JournalApplier.offline();
        for (int i = 0; i <= at; i++) {
            applier.apply(engine, rec.journal().get(i).entry(), rec.journal().get(i).position());
        }
        final EngineSnapshot snap = EngineSnapshot.fromBytes(new EngineSnapshot("p", 0, at,
                rec.journal().get(at).timestampMs(), engine.snapshot()).toBytes());
        final AuditResult r = audit(rec.journal(), rec.decisions(), Map.of("p", snap));
        assertThat(r.replayed()).isEqualTo(rec.journal().size() - at - 1);
        assertThat(r.startedFromSnapshot()).containsEntry("p", (long) at);
        assertThat(r.divergent()).isZero();
        assertThat(r.violationCount()).as(String.valueOf(r.violations())).isZero();
        final long after = rec.decisions().stream().filter(d -> d.getCause().getOffset() > at).count();
        assertThat(r.matched()).isEqualTo(after);

        final List<PlacementDecision> tampered = new ArrayList<>(rec.decisions());
        final int last = tampered.size() - 1;
        tampered.set(last, PlacementDecision.newBuilder(tampered.get(last)).setMessage("forged").build());
        final AuditResult t = audit(rec.journal(), tampered, Map.of("p", snap));
        assertThat(t.divergent()).isEqualTo(1);
        assertThat(t.firstDivergence().fieldDiffs()).singleElement().asString().startsWith("message:");
    }

    @Test
    void anOverAllocationInTheRecordIsAViolation() {
        final List<PlacementDecision> tampered = new ArrayList<>(rec.decisions());
        int i = 0;
        while (tampered.get(i).getOutcome() != DecisionOutcome.PLACED) {
            i++;
        }
        int j = i + 1;
        while (tampered.get(j).getOutcome() != DecisionOutcome.PLACED) {
            j++;
        }
        // the second placement, forged onto the first one's GPUs while those are held
        final PlacementDecision forged = PlacementDecision.newBuilder(tampered.get(j))
                .setAssignments(tampered.get(i).getAssignments()).build();
        tampered.set(j, forged);
        final AuditResult r = audit(rec.journal(), tampered, Map.of());
        assertThat(r.violations()).extracting(Violation::invariant).contains("no-over-allocation");
        assertThat(r.passed()).isFalse();
    }

    @Test
    void aPlacementOnAGpuThatWasUnhealthyAndAReleaseOfNothingAreViolations() {
        final List<PlacementDecision> tampered = new ArrayList<>(rec.decisions());
        // the first Xid, then the first single-node placement while that GPU is out (it heals 30 s later)
        int k = 0;
        while (!(rec.journal().get(k).entry().getPayload() instanceof io.gpupool.avro.GpuHealthChange h
                && h.getHealth() == io.gpupool.avro.GpuHealth.UNHEALTHY)) {
            k++;
        }
        final io.gpupool.avro.GpuHealthChange bad = (io.gpupool.avro.GpuHealthChange) rec.journal().get(k).entry().getPayload();
        final long xidAt = rec.journal().get(k).timestampMs();
        int i = 0;
        while (tampered.get(i).getCause().getOffset() <= k || tampered.get(i).getOutcome() != DecisionOutcome.PLACED
                || tampered.get(i).getAssignments().size() != 1 || tampered.get(i).getAssignments().get(0).getGpus().size() != 1) {
            i++;
        }
        assertThat(tampered.get(i).getCause().getTimestamp().toEpochMilli()).isLessThan(xidAt + 30_000);
        final PlacementDecision onBad = PlacementDecision.newBuilder(tampered.get(i)).build();
        onBad.getAssignments().set(0, NodeAssignment.newBuilder(onBad.getAssignments().get(0)).setNodeId(bad.getNodeId())
                .setGpus(List.of(new GpuAssignment(bad.getGpuUuid(), bad.getGpuIndex(), 1000))).build());
        tampered.set(i, onBad);
        // and a RELEASED for a job that never held anything
        final PlacementDecision queued = tampered.stream().filter(d -> d.getOutcome() == DecisionOutcome.QUEUED)
                .findFirst().orElseThrow();
        tampered.set(tampered.indexOf(queued), PlacementDecision.newBuilder(queued).setOutcome(DecisionOutcome.RELEASED)
                .build());
        final AuditResult r = audit(rec.journal(), tampered, Map.of());
        assertThat(r.violations()).extracting(Violation::invariant).contains("healthy-capacity", "one-state");
        assertThat(r.violations()).anySatisfy(v -> assertThat(v.detail()).contains(bad.getNodeId() + "/"
                + bad.getGpuIndex(), "unhealthy"));
    }
}
