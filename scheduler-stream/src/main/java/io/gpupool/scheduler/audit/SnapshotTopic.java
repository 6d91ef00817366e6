package io.gpupool.scheduler.audit;

import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * The compacted topic of engine snapshots. Its name follows the journal's ({@code <journal>.snapshots}),
 * so a deployment that renames or prefixes the journal gets a matching snapshot topic without one more
 * catalog entry. Key = pool (plus the snapshot's offset bucket, see {@link #key}), value = {@link EngineSnapshot}.
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

    /** Creates the topic (compacted, one partition per journal partition) when it does not exist. */
    public static void ensure(final Properties adminConfig, final String journalTopic, final int partitions) {
        try (Admin a = Admin.create(adminConfig)) {
            final Set<String> existing = a.listTopics().names().get(60, TimeUnit.SECONDS);
            final String name = name(journalTopic);
            if (existing.contains(name)) {
                return;
            }
            final NewTopic t = new NewTopic(name, java.util.Optional.of(partitions), java.util.Optional.empty())
                    .configs(Map.of("cleanup.policy", "compact"));
            a.createTopics(java.util.List.of(t)).all().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IllegalStateException("cannot create snapshot topic for " + journalTopic, e.getCause());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating the snapshot topic", e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("broker did not answer while creating the snapshot topic", e);
        }
    }
}
