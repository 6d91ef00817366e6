package io.gpupool.scheduler.stream;

/**
 * Where stage 1 reads job commands: the shared jobs topic, and with tenant topics also every
 * {@code <jobs>.<tenant>} ({@link io.gpupool.topics.TenantJobTopics}), found by pattern, so a tenant added
 * later is read without a restart (within the consumer's {@code metadata.max.age.ms}).
 *
 * @param byIdPartitions partitions of the repartition by job id: the existing internal topic's, or the larger
 *                       of the jobs and job-events topics' before it exists. Given rather than left to Kafka
 *                       Streams, which would size it by the largest source topic of its sub-topology (a tenant
 *                       topic made with more partitions, or the telemetry) and no longer match the existing
 *                       topic; and the keyer needs it to tell which records are on their job's partition
 */
public record JobSources(boolean tenantTopics, int byIdPartitions) {
    public JobSources {
        if (byIdPartitions < 1) {
            throw new IllegalArgumentException("the repartition by job id needs 1 partition or more, not " + byIdPartitions);
        }
    }

    public static JobSources sharedOnly(final int byIdPartitions) {
        return new JobSources(false, byIdPartitions);
    }

    public static JobSources withTenantTopics(final int byIdPartitions) {
        return new JobSources(true, byIdPartitions);
    }
}
