package io.gpupool.scheduler.journal;

import io.gpupool.topics.TopicSpec;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * The compacted topic of engine snapshots. Its name follows the journal's ({@code <journal>.snapshots}),
 * so a deployment that renames or prefixes the journal gets a matching snapshot topic without one more
 * catalog entry. Two kinds of record: key = pool (plus the snapshot's slot, see {@link #key}, and the
 * chunk index), value = one {@link SnapshotChunks chunk} of an {@link EngineSnapshot} record; and key =
 * job id and journal partition, value = the job's {@link io.gpupool.scheduler.journal.JobBookTopic job book record}.
 */
public final class SnapshotTopic {
    /** Snapshots kept per pool after compaction: audit can start from any of these. */
    public static final int KEPT_PER_POOL = 16;

    private SnapshotTopic() {
    }

    public static String name(final String journalTopic) {
        return journalTopic + ".snapshots";
    }

    /**
     * Record key: pool plus a rotating slot, so compaction keeps the last {@link #KEPT_PER_POOL}
     * snapshots of each pool (not only the newest) and an audit can verify from an older one.
     */
    public static String key(final String pool, final long generation) {
        return pool + "#" + Math.floorMod(generation, KEPT_PER_POOL);
    }

    /** The topic to create next to a journal: compacted, with the journal's partitions and replication. */
    public static NewTopic newTopic(final TopicSpec journal) {
        final Optional<Short> rf = journal.replicationFactor() == TopicSpec.BROKER_DEFAULT_REPLICATION
                ? Optional.empty() : Optional.of(journal.replicationFactor());
        return new NewTopic(name(journal.name()), Optional.of(journal.partitions()), rf)
                .configs(Map.of("cleanup.policy", "compact"));
    }
}
