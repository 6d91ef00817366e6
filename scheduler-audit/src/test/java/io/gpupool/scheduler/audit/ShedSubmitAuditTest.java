package io.gpupool.scheduler.audit;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.journal.JournalApplier;
import io.gpupool.scheduler.journal.JournalRecord;
import io.gpupool.scheduler.stream.Fixtures;
import io.gpupool.scheduler.stream.Harness;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * A submit stage 1 shed is a journaled fact like any other: the audit decides it again (REJECTED OVERLOADED), and
 * the same job id admitted later is a new job to the invariants, not a job that came back after a rejection.
 */
class ShedSubmitAuditTest {
    @Test
    void aShedSubmitAndTheSameIdAdmittedLaterAuditClean() throws Exception {
        try (Harness h = new Harness(1_000, 600_000)) {
            h.inventory.pipeInput("n0", Fixtures.node("p1", "n0", "leaf-0", 8), 1_000);
            h.backlog.measured(Map.of(0, 5_000L));
            h.jobs.pipeInput("x", Fixtures.submit("x", Fixtures.request("p1", 1, 4).build()), 2_000);
            h.backlog.measured(Map.of(0, 0L));
            h.jobs.pipeInput("x", Fixtures.submit("x", "again-x", Fixtures.request("p1", 1, 4).build()), 3_000);
            h.events.pipeInput("x", h.event("x", JobEventType.COMPLETED, 4_000), 4_000);

            final List<JournalEntry> entries = h.journal().stream().map(TestRecord::value).toList();
            final List<PlacementDecision> decisions = h.decisions();
            final List<NodeCommand> commands = h.commands.readValuesToList();
            assertThat(decisions).extracting(PlacementDecision::getOutcome, PlacementDecision::getReasonCode)
                    .containsExactly(tuple(DecisionOutcome.REJECTED, JournalApplier.OVERLOADED),
                            tuple(DecisionOutcome.PLACED, "PLACED"),
                            tuple(DecisionOutcome.RELEASED, "COMPLETED"));
            final List<JournalRecord> journal = new ArrayList<>();
            for (int i = 0; i < entries.size(); i++) {
                journal.add(new JournalRecord(0, i, entries.get(i)));
            }
            final AuditResult r = new Auditor(Harness.configs(Map.of()), Map.of(), AuditRange.ALL).run(journal.iterator(),
                    RecordedDecisions.of(decisions), RecordedCommands.of(commands));
            assertThat(r.divergent()).isZero();
            assertThat(r.passed()).as(r.violations() + " " + r.reality()).isTrue();
        }
    }
}
