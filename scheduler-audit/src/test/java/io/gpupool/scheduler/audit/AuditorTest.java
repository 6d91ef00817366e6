package io.gpupool.scheduler.audit;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.GpuAssignment;
import io.gpupool.avro.GpuHealth;
import io.gpupool.avro.GpuHealthChange;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.JobSubmit;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.NodeAssignment;
import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.NodeCommandType;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.avro.SourceRef;
import io.gpupool.scheduler.audit.reality.RealityAudit;
import io.gpupool.scheduler.audit.reality.ReportedEvent;
import io.gpupool.scheduler.audit.reality.SinkHistory;
import io.gpupool.scheduler.core.EngineConfig;
import io.gpupool.scheduler.core.PoolEngine;
import io.gpupool.scheduler.journal.Applied;
import io.gpupool.scheduler.journal.EngineSnapshot;
import io.gpupool.scheduler.journal.JournalApplier;
import io.gpupool.scheduler.journal.JournalRecord;
import io.gpupool.scheduler.journal.SnapshotChunks;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

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

    private static AuditResult audit(final List<JournalRecord> journal, final List<PlacementDecision> decisions,
                                     final List<NodeCommand> commands, final Map<String, EngineSnapshot> snapshots) {
        return new Auditor(p -> CONFIG, snapshots, AuditRange.ALL).run(journal.iterator(),
                RecordedDecisions.of(decisions), RecordedCommands.of(commands));
    }

    /** What the placer records for a journal: its decisions and node commands, and its snapshot after entry {@code at}. */
    private record Live(List<PlacementDecision> decisions, List<NodeCommand> commands, EngineSnapshot snapshot) {
    }

    private static Live live(final List<JournalRecord> journal, final int at) {
        final PoolEngine engine = new PoolEngine(CONFIG);
        final JournalApplier applier = JournalApplier.offline();
        final List<PlacementDecision> decisions = new ArrayList<>();
        final List<NodeCommand> commands = new ArrayList<>();
        EngineSnapshot snap = null;
        for (final JournalRecord r : journal) {
            final Applied a = applier.apply(engine, r.entry(), r.position());
            decisions.addAll(a.decisions());
            commands.addAll(a.commands());
            if (r.offset() == at) {
                // as the placer publishes it (in chunks), read back
                final EngineSnapshot s = new EngineSnapshot("p", 0, at, r.timestampMs(), engine.snapshot(),
                        applier.jobBookSnapshot(List.of(engine)));
                final SnapshotChunks.Assembler read = new SnapshotChunks.Assembler();
                SnapshotChunks.split("p", 7, s.toBytes()).forEach(c -> read.add(c.value()));
                snap = EngineSnapshot.fromBytes(read.complete().get("p").get(0));
            }
        }
        return new Live(decisions, commands, snap);
    }

    private static JournalRecord submitAgain(final JobCommand first, final String commandId, final long offset,
                                             final long t) {
        final JobCommand again = JobCommand.newBuilder(first).setCommandId(commandId).build();
        return new JournalRecord(0, offset, JournalEntry.newBuilder().setPool("p").setTimestamp(Instant.ofEpochMilli(t))
                .setSource(SourceRef.newBuilder().setTopic("synthetic").setPartition(0).setOffset(0)
                        .setTimestamp(Instant.ofEpochMilli(t)).setKey(first.getJobId()).build())
                .setPayload(again).build());
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
                rec.journal().get(at).timestampMs(), engine.snapshot(), applier.jobBookSnapshot(List.of(engine))).toBytes());
        final AuditResult r = audit(rec.journal(), rec.decisions(), rec.commands(), Map.of("p", snap));
        assertThat(r.replayed()).isEqualTo(rec.journal().size() - at - 1);
        assertThat(r.startedFromSnapshot()).containsEntry("p", (long) at);
        assertThat(r.divergent()).isZero();
        assertThat(r.violationCount()).as(String.valueOf(r.violations())).isZero();
        final long after = rec.decisions().stream().filter(d -> d.getCause().getOffset() > at).count();
        assertThat(r.matched()).isEqualTo(after);
        // node commands after the snapshot carry the job's name and tenant: the book kept the live jobs' requests
        final long commandsAfter = rec.commands().stream().filter(c -> c.getCause().getOffset() > at).count();
        assertThat(r.commands().matched()).isEqualTo(commandsAfter).isPositive();
        assertThat(r.commands().divergent()).isZero();

        final List<PlacementDecision> tampered = new ArrayList<>(rec.decisions());
        final int last = tampered.size() - 1;
        tampered.set(last, PlacementDecision.newBuilder(tampered.get(last)).setMessage("forged").build());
        final AuditResult t = audit(rec.journal(), tampered, Map.of("p", snap));
        assertThat(t.divergent()).isEqualTo(1);
        assertThat(t.firstDivergence().fieldDiffs()).singleElement().asString().startsWith("message:");
    }

    @Test
    void aJobIdResubmittedAfterTheSnapshotIsADuplicateInTheAuditFromTheSnapshotToo() {
        // job X: submitted, placed, completed, all before the snapshot
        final int at = 12_345;
        JobCommand x = null;
        for (int i = 0; i < 2_000 && x == null; i++) {
            if (rec.journal().get(i).entry().getPayload() instanceof JobCommand c && c.getCommand() instanceof JobSubmit) {
                final String id = c.getJobId();
                final boolean completedBefore = rec.journal().subList(i, at).stream().anyMatch(r ->
                        r.entry().getPayload() instanceof JobEvent e && e.getJobId().equals(id)
                                && e.getType() == JobEventType.COMPLETED);
                x = completedBefore ? c : null;
            }
        }
        assertThat(x).isNotNull();
        // after the snapshot: X submitted again under a new command id (a duplicate), and the first
        // command produced again (a retry: ignored), then the rest of the history
        final List<JournalRecord> journal = new ArrayList<>();
        for (final JournalRecord r : rec.journal()) {
            if (r.offset() == at + 100) {
                journal.add(submitAgain(x, "resubmit-" + x.getJobId(), journal.size(), r.timestampMs()));
                journal.add(submitAgain(x, x.getCommandId(), journal.size(), r.timestampMs()));
            }
            journal.add(new JournalRecord(0, journal.size(), r.entry()));
        }
        final Live live = live(journal, at);
        final String xId = x.getJobId();
        assertThat(live.decisions().stream().filter(d -> d.getCause().getOffset() == at + 100))
                .singleElement().satisfies(d -> {
                    assertThat(d.getJobId()).isEqualTo(xId);
                    assertThat(d.getOutcome()).isEqualTo(DecisionOutcome.REJECTED);
                    assertThat(d.getReasonCode()).isEqualTo("DUPLICATE_JOB");
                });
        assertThat(live.decisions().stream().filter(d -> d.getCause().getOffset() == at + 101)).isEmpty();

        final AuditResult r = audit(journal, live.decisions(), live.commands(), Map.of("p", live.snapshot()));
        assertThat(r.startedFromSnapshot()).containsEntry("p", (long) at);
        assertThat(r.divergent()).as(r.firstDivergence() == null ? "" : r.firstDivergence().describe()).isZero();
        assertThat(r.commands().divergent()).isZero();
        assertThat(r.commands().matched()).isPositive();
        assertThat(r.violationCount()).as(String.valueOf(r.violations())).isZero();
        assertThat(r.passed()).isTrue();

        // the same snapshot without its job book: the resubmitted X looks new, the audit diverges there
        final EngineSnapshot bookless = new EngineSnapshot("p", 0, at, live.snapshot().timestampMs(),
                live.snapshot().engine(), JournalApplier.offline().jobBookSnapshot(List.of()));
        final AuditResult wrong = audit(journal, live.decisions(), live.commands(), Map.of("p", bookless));
        assertThat(wrong.divergent()).isPositive();
        assertThat(wrong.firstDivergence().entry().offset()).isEqualTo(at + 100);

        // tampering after the snapshot is still found: the duplicate's rejection reworded
        final List<PlacementDecision> tampered = new ArrayList<>(live.decisions());
        final int k = tampered.indexOf(tampered.stream().filter(d -> d.getCause().getOffset() == at + 100).findFirst()
                .orElseThrow());
        tampered.set(k, PlacementDecision.newBuilder(tampered.get(k)).setReasonCode("OK").build());
        final AuditResult t = audit(journal, tampered, live.commands(), Map.of("p", live.snapshot()));
        assertThat(t.divergent()).isEqualTo(1);
        assertThat(t.firstDivergence().fieldDiffs()).singleElement().asString().startsWith("reasonCode:");
    }

    @Test
    void aSnapshotOfAnOlderSchedulerWithoutTheJobBookIsRefusedWithAReason() {
        // format 1 as older schedulers wrote it: magic, version 1, pool, partition, offset, timestamp, engine
        final ByteBuffer v1 = ByteBuffer.allocate(4 + 4 + 2 + 1 + 4 + 8 + 8 + 4 + 3);
        v1.putInt(0x47505342).putInt(1).putShort((short) 1).put((byte) 'p').putInt(0).putLong(99).putLong(5)
                .putInt(3).put(new byte[] {1, 2, 3});
        assertThat(EngineSnapshot.isWholeRecord(v1.array())).isTrue(); // on the topic before chunking
        assertThat(EngineSnapshot.isWholeRecord(SnapshotChunks.split("p", 1, v1.array()).get(0).value())).isFalse();
        final EngineSnapshot old = EngineSnapshot.fromBytes(v1.array());
        assertThat(old.offset()).isEqualTo(99);
        assertThat(old.hasJobBook()).isFalse();
        Assertions.assertThatThrownBy(() -> new Auditor(p -> CONFIG, Map.of("p", old), AuditRange.ALL))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("journal 0@99", "older scheduler", "job book", "--snapshot none");
        final byte[] future = v1.array().clone();
        future[7] = 9;
        Assertions.assertThatThrownBy(() -> EngineSnapshot.fromBytes(future))
                .hasMessageContaining("version 9 is not supported");
    }

    @Test
    void aTamperedNodeCommandIsFoundAndLocatedWithBothVersions() {
        final List<NodeCommand> tampered = new ArrayList<>(rec.commands());
        int i = 100;
        while (tampered.get(i).getType() != NodeCommandType.ALLOCATE) {
            i++;
        }
        final NodeCommand original = tampered.get(i);
        final NodeCommand forged = NodeCommand.newBuilder(original).setCpuMilli(original.getCpuMilli() + 1).build();
        tampered.set(i, forged);

        final AuditResult r = audit(rec.journal(), rec.decisions(), tampered, Map.of());
        assertThat(r.passed()).isFalse();
        assertThat(r.divergent()).isZero();
        assertThat(r.commands().divergent()).isEqualTo(1);
        assertThat(r.commands().matched()).isEqualTo(rec.commands().size() - 1);
        final CommandDivergence d = r.commands().first();
        assertThat(d.commandId()).isEqualTo(original.getCommandId());
        assertThat(d.entry().offset()).isEqualTo(original.getCause().getOffset());
        assertThat(d.recorded()).isEqualTo(forged);
        assertThat(d.recomputed()).isEqualTo(original);
        assertThat(d.fieldDiffs()).singleElement().asString().startsWith("cpuMilli: recorded=" + forged.getCpuMilli());
        final StringWriter out = new StringWriter();
        r.print(new PrintWriter(out));
        assertThat(out.toString()).contains("first node command divergence: command " + original.getCommandId()
                        + " (ALLOCATE to node " + original.getNodeId() + ")",
                "journal 0@" + original.getCause().getOffset(), "recorded:", "recomputed:", "differs in cpuMilli:");
        assertThat(out.toString()).containsPattern("(?m)^replayed=20000 matched=\\d+ divergent=0 violations=0"
                + " entries_per_s=\\d+ commands_matched=" + (rec.commands().size() - 1) + " commands_divergent=1$");

        // a recorded command dropped, and one the placer never sent added: both are divergences
        final List<NodeCommand> dropped = new ArrayList<>(rec.commands());
        final NodeCommand gone = dropped.remove(i);
        final AuditResult g = audit(rec.journal(), rec.decisions(), dropped, Map.of());
        assertThat(g.commands().divergent()).isEqualTo(1);
        assertThat(g.commands().first().recorded()).isNull();
        assertThat(g.commands().first().recomputed()).isEqualTo(gone);
        final List<NodeCommand> extra = new ArrayList<>(rec.commands());
        extra.add(i, NodeCommand.newBuilder(original).setCommandId(original.getCommandId() + "-x").build());
        final AuditResult e = audit(rec.journal(), rec.decisions(), extra, Map.of());
        assertThat(e.commands().divergent()).isEqualTo(1);
        assertThat(e.commands().first().recomputed()).isNull();
        // a forged copy appended after the original (a topic cannot be rewritten): shown against the original
        final List<NodeCommand> appended = new ArrayList<>(rec.commands());
        appended.add(i + 1, forged);
        final AuditResult a = audit(rec.journal(), rec.decisions(), appended, Map.of());
        assertThat(a.commands().divergent()).isEqualTo(1);
        assertThat(a.commands().matched()).isEqualTo(rec.commands().size());
        assertThat(a.commands().first().recorded()).isEqualTo(forged);
        assertThat(a.commands().first().recomputed()).isEqualTo(original);
        assertThat(a.commands().first().fieldDiffs()).singleElement().asString().startsWith("cpuMilli:");
    }

    @Test
    void nodeCommandsOlderThanTheTopicStillHoldsAreNotCompared() {
        final NodeCommand kept = rec.commands().get(rec.commands().size() / 2);
        final long from = kept.getCause().getOffset();
        // retention deleted every command before 'from', and one forged command lies before it too
        final List<NodeCommand> left = new ArrayList<>(rec.commands().stream()
                .filter(c -> c.getCause().getOffset() >= from).toList());
        left.add(0, NodeCommand.newBuilder(rec.commands().get(0)).setCpuMilli(1L).build());
        final AuditResult r = new Auditor(p -> CONFIG, Map.of(), AuditRange.ALL).run(rec.journal().iterator(),
                RecordedDecisions.of(rec.decisions()), RecordedCommands.of(left, Map.of(0, from)));
        assertThat(r.passed()).isTrue();
        assertThat(r.commands().matched()).isEqualTo(left.size() - 1);
        final StringWriter out = new StringWriter();
        r.print(new PrintWriter(out));
        assertThat(out.toString()).contains("node commands compared from journal offset " + from + " of partition 0");
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
        while (!(rec.journal().get(k).entry().getPayload() instanceof GpuHealthChange h
                && h.getHealth() == GpuHealth.UNHEALTHY)) {
            k++;
        }
        final GpuHealthChange bad = (GpuHealthChange) rec.journal().get(k).entry().getPayload();
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

    /** What a sink that answered every command would have reported: an APPLIED a little after each was issued. */
    private static List<ReportedEvent> appliedEvents(final List<NodeCommand> commands) {
        final List<ReportedEvent> events = new ArrayList<>();
        for (final NodeCommand c : commands) {
            events.add(new ReportedEvent(0, events.size(), JobEvent
                    .newBuilder().setJobId(c.getJobId()).setEventId(c.getCommandId() + "/APPLIED")
                    .setType(JobEventType.APPLIED).setCommandId(c.getCommandId()).setNodeId(c.getNodeId())
                    .setOccurredAt(c.getCause().getTimestamp().plusMillis(5)).build()));
        }
        return events;
    }

    private static AuditResult auditWithSinks(final AuditRange range, final List<ReportedEvent> events) {
        return new Auditor(p -> CONFIG, Map.of(), range).run(rec.journal().iterator(), RecordedDecisions.of(rec.decisions()),
                RecordedCommands.of(rec.commands()), new RealityAudit(
                        SinkHistory.complete(rec.commands(), events), null,
                        RealityAudit.DEFAULT_GRACE));
    }

    private static String[] lines(final AuditResult r) {
        final StringWriter out = new StringWriter();
        r.print(new PrintWriter(out));
        return out.toString().split("\n");
    }

    @Test
    void theSinksReportsAreCheckedTooAndTheirFiguresAreTheLastLine() {
        final List<ReportedEvent> all = appliedEvents(rec.commands());
        final AuditResult clean = auditWithSinks(AuditRange.ALL, all);
        assertThat(clean.passed()).isTrue();
        String[] l = lines(clean);
        assertThat(l[l.length - 1]).isEqualTo("overallocated_gpus=0 orphan_parts=0 unapplied_commands=0");
        assertThat(l[l.length - 2]).matches("replayed=20000 matched=\\d+ divergent=0 violations=0 entries_per_s=\\d+"
                + " commands_matched=" + rec.commands().size() + " commands_divergent=0");

        // the sink never answered the commands of the first half of the journal: the replay still matches
        final long half = rec.journal().size() / 2;
        final List<ReportedEvent> late = new ArrayList<>();
        for (int i = 0; i < rec.commands().size(); i++) {
            if (rec.commands().get(i).getCause().getOffset() >= half) {
                late.add(all.get(i));
            }
        }
        final long lost = rec.commands().stream().filter(c -> c.getCause().getOffset() < half).count();
        assertThat(lost).isGreaterThan(20);
        final AuditResult r = auditWithSinks(AuditRange.ALL, late);
        assertThat(r.passed()).isFalse();
        assertThat(r.divergent()).isZero();
        assertThat(r.violationCount()).isZero();
        assertThat(r.reality().unappliedCommands()).isEqualTo(lost);
        l = lines(r);
        assertThat(l[l.length - 1]).isEqualTo("overallocated_gpus=0 orphan_parts=0 unapplied_commands=" + lost);
        assertThat(l[l.length - 2]).startsWith("replayed=20000 ").endsWith(" commands_divergent=0");
        final NodeCommand firstLost = rec.commands().stream().filter(c -> c.getCause().getOffset() < half)
                .min(Comparator.comparing((NodeCommand c) -> c.getCause().getTimestamp())
                        .thenComparing(NodeCommand::getCommandId)).orElseThrow();
        assertThat(String.join("\n", l)).contains("unapplied command " + firstLost.getCommandId() + ": ",
                "... and " + (lost - 20) + " more unapplied commands");

        // audited up to a journal offset: the commands issued by the time of that entry are judged
        final long to = half / 2;
        final long issuedBy = rec.journal().get((int) to).timestampMs();
        final AuditResult upTo = auditWithSinks(AuditRange.of(null, Long.toString(to)), late);
        assertThat(upTo.reality().unappliedCommands()).isEqualTo(rec.commands().stream()
                .filter(c -> c.getCause().getTimestamp().toEpochMilli() <= issuedBy).count()).isLessThan(lost);
        // from an offset: from the time of that entry
        final long fromMs = rec.journal().get((int) to).timestampMs();
        final AuditResult from = auditWithSinks(AuditRange.of(Long.toString(to), null), late);
        assertThat(from.reality().unappliedCommands()).isEqualTo(rec.commands().stream()
                .filter(c -> c.getCause().getOffset() < half && c.getCause().getTimestamp().toEpochMilli() >= fromMs)
                .count()).isGreaterThan(0);
    }

    @Test
    void withoutTheSinkHistoryTheReportSaysWhyAndKeepsItsLastLine() {
        final AuditResult r = new Auditor(p -> CONFIG, Map.of(), AuditRange.ALL).run(rec.journal().iterator(),
                RecordedDecisions.of(rec.decisions()), RecordedCommands.of(rec.commands()),
                RealityAudit.notChecked("topic gpupool.job-events does not exist"));
        assertThat(r.passed()).isTrue();
        final String[] l = lines(r);
        assertThat(l).contains("reality not checked: topic gpupool.job-events does not exist");
        assertThat(l[l.length - 1]).startsWith("replayed=20000 ");
    }
}
