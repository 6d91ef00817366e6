package io.gpupool.scheduler.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.EngineSettings;
import io.gpupool.avro.InventoryChange;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobRequest;
import io.gpupool.avro.JobSubmit;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.core.EngineConfig;
import io.gpupool.scheduler.core.PoolEngine;
import io.gpupool.scheduler.journal.Applied;
import io.gpupool.scheduler.journal.JournalApplier;
import io.gpupool.scheduler.journal.JournalRecord;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Two runs of a placer with different quotas, as the journal records them: the first run's settings,
 * its entries, a restart (the engine restored from its snapshot), the second run's settings and its
 * entries. An audit given the second run's settings replays each run under its own and names the change.
 */
class ConfigChangeAuditTest {
    private static final EngineConfig RUN1 = quota("8");
    private static final EngineConfig RUN2 = quota("32");

    private final List<JournalRecord> journal = new ArrayList<>();
    private final List<PlacementDecision> decisions = new ArrayList<>();
    private final List<NodeCommand> commands = new ArrayList<>();
    private final JournalApplier live = JournalApplier.offline();

    @Test
    void eachRunIsReplayedUnderItsOwnSettingsAndTheChangeIsReported() {
        PoolEngine engine = new PoolEngine(RUN1);
        add(engine, new EngineSettings(new TreeMap<>(RUN1.toSettings())));
        for (int n = 0; n < 4; n++) {
            add(engine, InventoryChange.newBuilder().setNodeId("n" + n).setRemoved(false)
                    .setInventory(SyntheticHistory.node("p", "n" + n, "leaf-" + n / 2, 8)).build());
        }
        for (int i = 0; i < 4; i++) {
            add(engine, submit("j" + i));
        }
        assertThat(decisions).extracting(PlacementDecision::getOutcome).containsExactly(DecisionOutcome.PLACED,
                DecisionOutcome.PLACED, DecisionOutcome.QUEUED, DecisionOutcome.QUEUED);

        // the restart: the snapshot keeps the first run's settings, whatever the new process is configured with
        engine = PoolEngine.restore(engine.snapshot(), RUN2);
        assertThat(engine.config()).isEqualTo(RUN1);
        add(engine, new EngineSettings(new TreeMap<>(RUN2.toSettings())));
        assertThat(engine.config()).isEqualTo(RUN2);
        final long changedAt = journal.size() - 1;
        add(engine, submit("j4"));
        assertThat(decisions).filteredOn(d -> d.getOutcome() == DecisionOutcome.PLACED).hasSize(5);

        final AuditResult audit = new Auditor(p -> RUN2, Map.of(), AuditRange.ALL).run(journal.iterator(),
                RecordedDecisions.of(decisions), RecordedCommands.of(commands));
        assertThat(audit.passed()).as(text(audit)).isTrue();
        assertThat(audit.matched()).isEqualTo(decisions.size());
        assertThat(audit.configChanges()).singleElement().satisfies(c -> {
            assertThat(c.offset()).isEqualTo(changedAt);
            assertThat(c.changes()).containsExactly("tenant.team-a.max-gpus: 8 -> 32");
        });
        assertThat(text(audit)).contains("pool p: engine configuration changed at journal 0@" + changedAt
                + ": tenant.team-a.max-gpus: 8 -> 32", "config_changes=1");
    }

    private void add(final PoolEngine engine, final Object payload) {
        final long t = 1_000L * (journal.size() + 1);
        final JournalEntry e = JournalEntry.newBuilder().setPool("p").setTimestamp(Instant.ofEpochMilli(t))
                .setSource(null).setPayload(payload).build();
        final JournalRecord r = new JournalRecord(0, journal.size(), e);
        journal.add(r);
        final Applied a = live.apply(engine, e, r.position());
        decisions.addAll(a.decisions());
        commands.addAll(a.commands());
    }

    private static JobCommand submit(final String id) {
        return JobCommand.newBuilder().setJobId(id).setCommandId("submit-" + id).setCommand(JobSubmit.newBuilder()
                .setRequest(JobRequest.newBuilder().setName("train").setTenant("team-a").setPool("p").setNodes(1)
                        .setGpusPerNode(4).build()).build()).build();
    }

    private static EngineConfig quota(final String maxGpus) {
        return EngineConfig.fromSettings(Map.of("pool", "p", "tenant.team-a.max-gpus", maxGpus));
    }

    private static String text(final AuditResult r) {
        final StringWriter s = new StringWriter();
        r.print(new PrintWriter(s));
        return s.toString();
    }
}
