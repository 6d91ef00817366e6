package io.gpupool.scheduler.journal;

import io.gpupool.topics.TenantJobTopics;
import io.gpupool.topics.Topic;
import io.gpupool.topics.TopicCatalog;

/** The physical topic names the scheduler reads and writes, resolved once from the catalog. */
public record TopicNames(String inventory, String telemetryGpu, String telemetryLink, String jobs, String jobEvents,
                         String journal, String decisions, String nodeCommands, String dlq) {

    public static TopicNames of(final TopicCatalog c) {
        return new TopicNames(c.name(Topic.INVENTORY), c.name(Topic.TELEMETRY_GPU), c.name(Topic.TELEMETRY_LINK),
                c.name(Topic.JOBS), c.name(Topic.JOB_EVENTS), c.name(Topic.JOURNAL), c.name(Topic.DECISIONS),
                c.name(Topic.NODE_COMMANDS), c.name(Topic.DLQ));
    }

    /** The tenant whose job topic ({@code <jobs>.<tenant>}) this is, or null for any other topic. */
    public String tenantOf(final String topic) {
        return TenantJobTopics.tenantOf(jobs, topic);
    }

    /** Whether job commands are read from this topic: the shared jobs topic or a tenant's. */
    public boolean carriesJobCommands(final String topic) {
        return jobs.equals(topic) || tenantOf(topic) != null;
    }

    public static TopicNames defaults() {
        return of(TopicCatalog.defaults());
    }
}
