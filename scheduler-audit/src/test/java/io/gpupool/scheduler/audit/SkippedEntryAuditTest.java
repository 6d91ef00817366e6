package io.gpupool.scheduler.audit;

import io.gpupool.scheduler.journal.EngineSnapshot;
import io.gpupool.scheduler.journal.JournalRecord;
import io.gpupool.scheduler.journal.SnapshotTopic;
import io.gpupool.scheduler.journal.SnapshotTopicRecords;
import io.gpupool.scheduler.stream.HalfAppliedGang;
import io.gpupool.scheduler.stream.Harness;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An audit skips a journal entry the engine throws on exactly as the placer did (the engine as it was before the
 * entry, the same REJECTED decision), so a run with such an entry audits clean, from the start of the journal and
 * from every snapshot the placer published, and the report names the skipped entry.
 */
class SkippedEntryAuditTest {

    @Test
    void aRunWithAnEntryTheEngineThrewOnAuditsCleanAndTheReportNamesTheSkip() throws Exception {
        try (Harness h = new Harness(3, 600_000, HalfAppliedGang.SETTINGS)) {
            final HalfAppliedGang.Run run = HalfAppliedGang.run(h);
            final List<JournalRecord> journal = new ArrayList<>();
            for (int i = 0; i < run.journal().size(); i++) {
                journal.add(new JournalRecord(0, i, run.journal().get(i)));
            }
            final AuditResult all = new Auditor(Harness.configs(HalfAppliedGang.SETTINGS), Map.of(), AuditRange.ALL)
                    .run(journal.iterator(), RecordedDecisions.of(run.decisions()), RecordedCommands.of(run.commands()));
            assertThat(all.passed()).as(report(all)).isTrue();
            assertThat(all.skippedCount()).isEqualTo(1);
            assertThat(report(all)).contains("skipped as the placer skips it").contains("IllegalStateException")
                    .contains("skipped_entries=1").contains("divergent=0 violations=0");

            final SnapshotTopicRecords topic = new SnapshotTopicRecords();
            h.driver.createOutputTopic(SnapshotTopic.name(h.topics.journal()), new StringDeserializer(),
                    new ByteArrayDeserializer()).readValuesToList().forEach(topic::add);
            final List<EngineSnapshot> snapshots = topic.snapshots("p1").get("p1");
            assertThat(snapshots).hasSizeGreaterThan(1);
            for (final EngineSnapshot snap : snapshots) {
                final AuditResult r = new Auditor(Harness.configs(HalfAppliedGang.SETTINGS), Map.of("p1", snap),
                        AuditRange.ALL).run(journal.iterator(), RecordedDecisions.of(run.decisions()),
                        RecordedCommands.of(run.commands()));
                assertThat(r.passed()).as("from " + snap.describe() + ": " + report(r)).isTrue();
            }
        }
    }

    private static String report(final AuditResult r) {
        final StringWriter s = new StringWriter();
        r.print(new PrintWriter(s));
        return s.toString();
    }
}
