package io.gpupool.scheduler.audit;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.core.EngineConfig;
import io.gpupool.scheduler.journal.EngineSnapshot;
import io.gpupool.scheduler.journal.JobBookTopic;
import io.gpupool.scheduler.journal.JournalRecord;
import io.gpupool.scheduler.journal.SnapshotTopic;
import io.gpupool.scheduler.journal.SnapshotTopicRecords;
import io.gpupool.scheduler.stream.Fixtures;
import io.gpupool.scheduler.stream.Harness;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An audit from any published snapshot agrees with the placer across a finished job's expiry: the
 * job book read back from the snapshot topic knows when each finished record expires (and, from the
 * tombstones, which already did), so a resubmit is a duplicate within the retention and a new job after it.
 */
class FinishedJobRetentionAuditTest {
    private static final long RETENTION_MS = 60_000;
    private static final Map<String, String> SETTINGS = Map.of("finished-job-retention-ms", Long.toString(RETENTION_MS));
    private static final Function<String, EngineConfig> CONFIGS = Harness.configs(SETTINGS);

    @Test
    void anAuditFromEveryPublishedSnapshotMatchesThePlacerAcrossAnExpiry() throws Exception {
        try (Harness h = new Harness(3, 600_000, SETTINGS)) {
            h.inventory.pipeInput("n0", Fixtures.node("p1", "n0", "leaf-0", 8), 1_000);
            h.inventory.pipeInput("n1", Fixtures.node("p1", "n1", "leaf-0", 8), 1_000);
            h.jobs.pipeInput("x", Fixtures.submit("x", Fixtures.request("p1", 1, 4).build()), 2_000);
            h.events.pipeInput("x", h.event("x", JobEventType.STARTED, 2_100), 2_100);
            h.events.pipeInput("x", h.event("x", JobEventType.COMPLETED, 3_000), 3_000);
            h.jobs.pipeInput("y", Fixtures.submit("y", Fixtures.request("p1", 1, 8).build()), 3_500);
            h.jobs.pipeInput("x", Fixtures.submit("x", "again-x", Fixtures.request("p1", 1, 2).build()), 3_000 + RETENTION_MS - 1);
            h.jobs.pipeInput("z", Fixtures.submit("z", Fixtures.request("p1", 1, 1).build()), 3_000 + RETENTION_MS);
            h.jobs.pipeInput("x", Fixtures.submit("x", "third-x", Fixtures.request("p1", 1, 2).build()), 3_000 + RETENTION_MS + 100);
            h.events.pipeInput("y", h.event("y", JobEventType.COMPLETED, 64_000), 64_000);
            h.events.pipeInput("x", h.event("x", JobEventType.COMPLETED, 64_100), 64_100);
            h.jobs.pipeInput("w", Fixtures.submit("w", Fixtures.request("p1", 2, 8).build()), 64_200);

            final List<JournalEntry> entries = h.journal().stream().map(TestRecord::value).toList();
            final List<PlacementDecision> decisions = h.decisions();
            final List<NodeCommand> commands = h.commands.readValuesToList();
            assertThat(decisions).filteredOn(d -> d.getJobId().equals("x")).extracting(PlacementDecision::getOutcome)
                    .containsSubsequence(DecisionOutcome.RELEASED, DecisionOutcome.REJECTED, DecisionOutcome.PLACED);
            final SnapshotTopicRecords topic = new SnapshotTopicRecords();
            int tombstones = 0;
            for (final TestRecord<String, byte[]> r : h.driver.createOutputTopic(SnapshotTopic.name(h.topics.journal()),
                    new StringDeserializer(), new ByteArrayDeserializer()).readRecordsToList()) {
                if (r.value() == null) {
                    final Header at = r.headers().lastHeader(JobBookTopic.EXPIRED_AT);
                    topic.tombstone(r.key(), at == null ? null : at.value());
                    tombstones++;
                } else {
                    topic.add(r.value());
                }
            }
            assertThat(tombstones).as("x's first record expired").isEqualTo(1);
            final List<EngineSnapshot> snapshots = new ArrayList<>();
            topic.snapshots(null).values().forEach(snapshots::addAll);
            assertThat(snapshots.size()).isGreaterThan(3);

            final List<JournalRecord> journal = new ArrayList<>();
            for (int i = 0; i < entries.size(); i++) {
                journal.add(new JournalRecord(0, i, entries.get(i)));
            }
            for (final EngineSnapshot snap : snapshots) {
                final AuditResult r = new Auditor(CONFIGS, Map.of("p1", snap), AuditRange.ALL).run(journal.iterator(),
                        RecordedDecisions.of(decisions), RecordedCommands.of(commands));
                assertThat(r.divergent()).as("from " + snap.describe() + ": "
                        + (r.firstDivergence() == null ? "" : r.firstDivergence().describe())).isZero();
                assertThat(r.passed()).as("from " + snap.describe() + ": " + r.violations() + " " + r.commands().first()
                        + " " + r.reality()).isTrue();
            }
            final AuditResult whole = new Auditor(CONFIGS, Map.of(), AuditRange.ALL).run(journal.iterator(),
                    RecordedDecisions.of(decisions), RecordedCommands.of(commands));
            assertThat(whole.divergent()).isZero();
            assertThat(whole.passed()).isTrue();
        }
    }
}
