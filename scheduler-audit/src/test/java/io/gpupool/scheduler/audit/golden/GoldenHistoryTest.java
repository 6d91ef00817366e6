package io.gpupool.scheduler.audit.golden;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.audit.AuditRange;
import io.gpupool.scheduler.audit.AuditResult;
import io.gpupool.scheduler.audit.Auditor;
import io.gpupool.scheduler.audit.RecordedCommands;
import io.gpupool.scheduler.audit.RecordedDecisions;
import io.gpupool.scheduler.audit.reality.RealityAudit;
import io.gpupool.scheduler.audit.reality.SinkHistory;
import io.gpupool.scheduler.core.EngineConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A real recorded run (a `gpupool up` pipeline on the local broker: gangs, fractional shares,
 * preemption, an Xid eviction, a cancel; see golden/history-1/SOURCE.md) replayed through today's
 * engine and journal applier: every decision and node command comes out byte for byte as recorded.
 * It guards every change of the engine and of the stage-2 mapping: a refactor that changes a single
 * decision, score, reason text or command fails here. A deliberate change of behaviour needs a new
 * recording (GoldenHistoryRecorder) and says so in its commit.
 */
class GoldenHistoryTest {
    private static final String HISTORY = "/golden/history-1";

    @Test
    void theRecordedRunHoldsWhatItGuards() {
        final List<PlacementDecision> d = RecordedHistoryFiles.read(HISTORY).decisions();
        assertThat(d).as("a gang").anyMatch(x -> x.getOutcome() == DecisionOutcome.PLACED && x.getAssignments().size() > 1);
        assertThat(d).as("a fractional share").anyMatch(x -> x.getOutcome() == DecisionOutcome.PLACED
                && x.getAssignments().get(0).getGpus().get(0).getMilli() < 1000);
        assertThat(d).as("a preemption").anyMatch(x -> "PREEMPTED".equals(x.getReasonCode()));
        assertThat(d).as("an eviction for failed hardware").anyMatch(x -> "HARDWARE_FAILURE".equals(x.getReasonCode()));
        assertThat(d).as("a cancel").anyMatch(x -> x.getOutcome() == DecisionOutcome.CANCELLED);
        assertThat(d).as("completions").anyMatch(x -> x.getOutcome() == DecisionOutcome.RELEASED);
    }

    @Test
    void replayingItGivesTheSameDecisionsAndNodeCommandsByteForByte() {
        final RecordedHistoryFiles.History h = RecordedHistoryFiles.read(HISTORY);
        final AuditResult r = new Auditor(pool -> EngineConfig.fromSettings(Map.of("pool", pool)), Map.of(), AuditRange.ALL)
                .run(h.journal().iterator(), RecordedDecisions.of(h.decisions()), RecordedCommands.of(h.commands()),
                        new RealityAudit(SinkHistory.complete(h.commands(), h.events()), null, Duration.ofSeconds(60)));
        final StringWriter report = new StringWriter();
        r.print(new PrintWriter(report, true));
        assertThat(r.divergent()).as(report.toString()).isZero();
        assertThat(r.matched()).as(report.toString()).isEqualTo(h.decisions().size());
        assertThat(r.commands().matched()).as(report.toString()).isEqualTo(h.commands().size());
        assertThat(r.commands().divergent()).as(report.toString()).isZero();
        assertThat(r.violationCount()).as(report.toString()).isZero();
        assertThat(r.reality().overallocatedGpus()).as(report.toString()).isZero();
        assertThat(r.reality().orphanParts()).as(report.toString()).isZero();
    }
}
