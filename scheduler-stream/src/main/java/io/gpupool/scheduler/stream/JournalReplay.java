package io.gpupool.scheduler.stream;

import io.gpupool.scheduler.journal.Applied;
import io.gpupool.scheduler.journal.JournalApplier;
import io.gpupool.scheduler.journal.ReplayPools;

import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.JournalPosition;
import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.core.EngineConfig;
import io.gpupool.scheduler.core.PoolEngine;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The placer without Kafka: journal entries in, in journal order, decisions and node commands out.
 * What an audit runs; the determinism test proves it reproduces the recorded decisions byte for byte.
 */
public final class JournalReplay {
    /** One job book per journal partition, as in the placer (one task per partition). */
    private final Map<Integer, JournalApplier> appliers = new HashMap<>();
    private final ReplayPools engines;
    private final List<PlacementDecision> decisions = new ArrayList<>();
    private final List<NodeCommand> commands = new ArrayList<>();

    public JournalReplay(final Function<String, EngineConfig> configs) {
        this.engines = new ReplayPools(configs);
    }

    public void apply(final JournalEntry entry, final int partition, final long offset) {
        final Applied a = engines.apply(appliers.computeIfAbsent(partition, p -> JournalApplier.offline()), entry,
                new JournalPosition(partition, offset, entry.getTimestamp()));
        decisions.addAll(a.decisions());
        commands.addAll(a.commands());
    }

    public List<PlacementDecision> decisions() {
        return decisions;
    }

    public List<NodeCommand> commands() {
        return commands;
    }

    public Map<String, PoolEngine> engines() {
        return engines.engines();
    }
}
