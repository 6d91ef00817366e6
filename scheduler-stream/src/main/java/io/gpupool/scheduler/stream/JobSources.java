package io.gpupool.scheduler.stream;

/**
 * Where stage 1 reads job commands: the shared jobs topic, and with tenant topics also every
 * {@code <jobs>.<tenant>} ({@link io.gpupool.topics.TenantJobTopics}), found by pattern, so a tenant added
 * later is read without a restart (within the consumer's {@code metadata.max.age.ms}).
 *
 * @param byIdPartitions partitions of the repartition by job id while tenant topics are read. Kafka Streams
 *                       would otherwise size it by the largest source topic, and a tenant topic made with more
 *                       partitions than the others would then no longer match the existing internal topic
 *                       (and the placer's route notices, which go onto it by job id, would move)
 */
public record JobSources(boolean tenantTopics, int byIdPartitions) {
    public static final JobSources SHARED_ONLY = new JobSources(false, 0);

    public JobSources {
        if (tenantTopics && byIdPartitions < 1) {
            throw new IllegalArgumentException("reading tenant topics needs the partitions of the repartition by job id");
        }
    }

    public static JobSources withTenantTopics(final int byIdPartitions) {
        return new JobSources(true, byIdPartitions);
    }
}
