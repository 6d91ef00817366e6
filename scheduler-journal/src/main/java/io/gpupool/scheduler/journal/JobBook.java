package io.gpupool.scheduler.journal;

import java.util.TreeMap;
import java.util.function.BiConsumer;

/**
 * Where the placer keeps {@link JobRecord}s: a state store in the application, a map in a replay.
 * One book per journal partition (a placer task reads one partition), shared by the pools on it.
 */
public interface JobBook {
    JobRecord get(String jobId);

    void put(String jobId, JobRecord record);

    /** Every record as {@link JobRecord#toBytes()} bytes, in job id order (UTF-8 byte order). */
    void forEachInOrder(BiConsumer<String, byte[]> each);

    /** A book in memory (offline replay and tests). */
    static JobBook inMemory() {
        // sorted: job ids are ASCII (JobRequestMapper.badJobId), so String order is UTF-8 byte order
        final TreeMap<String, JobRecord> m = new TreeMap<>();
        return new JobBook() {
            @Override
            public JobRecord get(final String jobId) {
                return m.get(jobId);
            }

            @Override
            public void put(final String jobId, final JobRecord record) {
                m.put(jobId, record);
            }

            @Override
            public void forEachInOrder(final BiConsumer<String, byte[]> each) {
                m.forEach((id, record) -> each.accept(id, record.toBytes()));
            }
        };
    }
}
