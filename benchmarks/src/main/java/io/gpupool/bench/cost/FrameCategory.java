package io.gpupool.bench.cost;

import java.util.List;

/**
 * What a CPU sample was doing, by the innermost frame of a known component. A sample is charged to the first frame
 * from the top of its stack whose class belongs to a category here; JDK and generic Kafka frames (collections,
 * record batches, CRCs, byte utilities) belong to none, so they are charged to whoever called them: a HashMap lookup
 * in the engine is engine time, a CRC over a batch being produced is producer time.
 */
enum FrameCategory {
    ROCKSDB("rocksdb", "org.rocksdb.", "org.apache.kafka.streams.state.internals.RocksDB"),
    SERDE("serde", "org.apache.avro.", "io.gpupool.serde.", "io.gpupool.avro."),
    ENGINE("engine", "io.gpupool.scheduler.core."),
    JOURNAL_MAPPING("journal_mapping", "io.gpupool.scheduler.journal."),
    COMPRESSION("compression", "net.jpountz.", "org.apache.kafka.common.compress."),
    PRODUCER("producer_transactions", "org.apache.kafka.clients.producer.",
            "org.apache.kafka.streams.processor.internals.RecordCollectorImpl",
            "org.apache.kafka.streams.processor.internals.StreamsProducer"),
    CONSUMER("consumer_fetch", "org.apache.kafka.clients.consumer."),
    NETWORK("network", "org.apache.kafka.common.network.", "org.apache.kafka.clients.NetworkClient",
            "org.apache.kafka.clients.ClusterConnectionStates", "sun.nio.ch."),
    METRICS("metrics", "org.apache.kafka.common.metrics.", "io.micrometer."),
    STREAMS_RUNTIME("streams_runtime", "org.apache.kafka.streams."),
    SCHEDULER_STREAM("scheduler_stream", "io.gpupool.scheduler.stream.", "io.gpupool.scheduler.app."),
    OTHER("other");

    private final String label;
    private final List<String> prefixes;

    FrameCategory(final String label, final String... classPrefixes) {
        this.label = label;
        this.prefixes = List.of(classPrefixes);
    }

    String label() {
        return label;
    }

    /** The category of a stack given as class names, innermost first; {@link #OTHER} when no frame has one. */
    static FrameCategory of(final List<String> classesInnermostFirst) {
        for (final String c : classesInnermostFirst) {
            for (final FrameCategory k : values()) {
                for (final String p : k.prefixes) {
                    if (c.startsWith(p)) {
                        return k;
                    }
                }
            }
        }
        return OTHER;
    }
}
