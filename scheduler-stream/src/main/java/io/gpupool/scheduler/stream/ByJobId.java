package io.gpupool.scheduler.stream;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.processor.StreamPartitioner;

/**
 * The partition of the repartition by job id that a job's records and route notices go to: murmur2 of the
 * key's bytes, as Java's default partitioner puts a keyed record. The hop's sink, the placer's notices and
 * the keyer's check whether a record is already there all use this one function, so a producer setting of
 * the scheduler's own cannot make them disagree.
 */
final class ByJobId {
    private ByJobId() {
    }

    static int partition(final byte[] key, final int partitions) {
        return Utils.toPositive(Utils.murmur2(key)) % partitions;
    }

    /** For the hop's sink, whose keys are the keyer's bytes. */
    static StreamPartitioner<byte[], byte[]> ofBytes() {
        return (topic, key, value, partitions) -> Optional.of(Set.of(partition(key, partitions)));
    }

    /** For the placer's route notices, keyed by the job id as a string (written as its UTF-8 bytes). */
    static StreamPartitioner<String, String> ofJobIds() {
        return (topic, key, value, partitions) ->
                Optional.of(Set.of(partition(key.getBytes(StandardCharsets.UTF_8), partitions)));
    }
}
