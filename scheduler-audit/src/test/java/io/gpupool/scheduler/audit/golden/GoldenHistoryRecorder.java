package io.gpupool.scheduler.audit.golden;

import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.journal.JournalRecord;
import io.gpupool.scheduler.audit.KafkaHistory;
import io.gpupool.scheduler.audit.reality.ReportedEvent;
import io.gpupool.scheduler.audit.reality.SinkHistory;
import io.gpupool.scheduler.stream.SchedulerOptions;
import io.gpupool.scheduler.journal.TopicNames;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.CommonClientConfigs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Records a running stack's history as a golden resource (not a test; run on purpose):
 * <pre>
 * mvn -B -pl scheduler-audit -am test -Dtest=GoldenHistoryRecorder -Dsurefire.failIfNoSpecifiedTests=false \
 *   -Dgpupool.record.bootstrap=127.0.0.1:PORT -Dgpupool.record.registry=http://127.0.0.1:PORT \
 *   -Dgpupool.record.out=$PWD/scheduler-audit/src/test/resources/golden/history-N
 * </pre>
 * It keeps what the scheduler had decided when it was read: journal entries before the placer's
 * committed position, the decisions and commands they caused, and the job events answering those
 * commands; a later entry or event would have nothing recorded to be compared with.
 */
@EnabledIfSystemProperty(named = "gpupool.record.out", matches = ".+")
class GoldenHistoryRecorder {

    @Test
    void record() throws Exception {
        final Properties clients = new Properties();
        clients.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, System.getProperty("gpupool.record.bootstrap"));
        try (KafkaHistory h = new KafkaHistory(clients, System.getProperty("gpupool.record.registry"),
                TopicNames.defaults())) {
            final Map<Integer, Long> decided = h.placerPositions(SchedulerOptions.DEFAULT_APPLICATION_ID);
            final List<JournalRecord> journal = new ArrayList<>();
            for (final Iterator<JournalRecord> it = h.journal(null, Map.of(), decided); it.hasNext(); ) {
                journal.add(it.next());
            }
            final List<PlacementDecision> decisions = new ArrayList<>();
            for (final PlacementDecision d : h.decisions(null)) {
                if (d.getCause().getOffset() < decided.getOrDefault(d.getCause().getPartition(), Long.MAX_VALUE)) {
                    decisions.add(d);
                }
            }
            final SinkHistory sink = h.sinkHistory();
            final List<NodeCommand> commands = new ArrayList<>();
            final Set<String> commandIds = new HashSet<>();
            for (final NodeCommand c : sink.commands()) {
                if (c.getCause().getOffset() < decided.getOrDefault(c.getCause().getPartition(), Long.MAX_VALUE)) {
                    commands.add(c);
                    commandIds.add(c.getCommandId());
                }
            }
            final List<ReportedEvent> events = new ArrayList<>();
            for (final ReportedEvent e : sink.events()) {
                if (e.event().getCommandId() != null && commandIds.contains(e.event().getCommandId())) {
                    events.add(e);
                }
            }
            RecordedHistoryFiles.write(Path.of(System.getProperty("gpupool.record.out")),
                    new RecordedHistoryFiles.History(journal, decisions, commands, events));
            System.out.printf("recorded journal=%d decisions=%d node_commands=%d job_events=%d up to %s%n",
                    journal.size(), decisions.size(), commands.size(), events.size(), decided);
        }
    }
}
