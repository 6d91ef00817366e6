package io.gpupool.scheduler.stream;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Kafka Streams configuration of the scheduler. The base is exactly-once (v2) with settings that
 * work on the one-broker local stack (replication 1); {@code production.properties} on the
 * classpath is the profile for a 3-broker cluster (RF 3, min ISR 2, a standby replica). Caller
 * settings (--command-config, flags) go on top.
 */
public final class StreamsSettings {
    public static final String PRODUCTION_PROFILE = "/io/gpupool/scheduler/stream/production.properties";
    /**
     * Compression of everything the scheduler writes (decisions, node commands, the DLQ, the journal, its
     * changelogs) where nothing better is known: gzip, because every common client reads it. The Java client
     * and librdkafka (Python, Go, .NET) read every codec, but kafkajs has only gzip built in (lz4, snappy and
     * zstd need native plugins), and a sink or dashboard in Node must be able to read decisions and node commands.
     */
    public static final String READABLE_EVERYWHERE_COMPRESSION = "gzip";
    /**
     * What the scheduler writes with when the broker re-encodes the topics others read into gzip (the topics
     * gpupool creates are set so; see the scheduler app's OutputCompression): lz4, several times cheaper on
     * the stream threads than gzip, which matters most for the multi-MB snapshots.
     */
    public static final String FAST_COMPRESSION = "lz4";
    /** The codecs Kafka producers know. */
    public static final List<String> CODECS = List.of("none", "gzip", "snappy", "lz4", "zstd");

    private StreamsSettings() {
    }

    /** Exactly-once settings for the one-broker local stack. */
    public static Properties local(final String applicationId, final String bootstrap, final String stateDir) {
        final Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        // one broker: internal topics (changelogs, repartition) cannot have more than one replica
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
        // EOS commits are transaction commits, and a decision is visible after its commit. This is the longest a
        // commit waits: the scheduler asks for one sooner, every 10 ms while commits are cheap and less often as
        // they get dearer (CommitCadence: at least 4x the time the last took). A fixed 10 ms (the value before)
        // collapsed at 2,800 requests/s on the 2-core bench machine; see scheduler-stream/README.md, Benchmark.
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, streamThreadsHere());
        // a produce right after a transaction commit gets CONCURRENT_TRANSACTIONS; the default back-off
        // grows to 1 s and stalls the pipeline, while the broker is ready again within milliseconds
        p.put(StreamsConfig.producerPrefix(ProducerConfig.RETRY_BACKOFF_MS_CONFIG), 5);
        p.put(StreamsConfig.producerPrefix(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG), 50);
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 8L * 1024 * 1024);
        p.put(StreamsConfig.producerPrefix(ProducerConfig.LINGER_MS_CONFIG), 5);
        p.put(StreamsConfig.producerPrefix(ProducerConfig.BATCH_SIZE_CONFIG), 256 * 1024);
        p.put(StreamsConfig.producerPrefix(ProducerConfig.COMPRESSION_TYPE_CONFIG), READABLE_EVERYWHERE_COMPRESSION);
        // snapshot chunks are 512 KB; leave room for headers
        p.put(StreamsConfig.producerPrefix(ProducerConfig.MAX_REQUEST_SIZE_CONFIG), 2 * 1024 * 1024);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.MAX_POLL_RECORDS_CONFIG), 2000);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG), 10);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        // Never hold records back to align timestamps across a task's input partitions: the journal fixes
        // the order that counts, whatever order stage 1 reads its topics in. 0 still waits for a partition
        // with unfetched data and formats a message about it on every call; -1 skips all of that. (A new
        // node's first telemetry can then be read before its inventory: it is dropped and counted as
        // unknown_node, and the next sample counts. Job events follow their submit's decision, so a
        // job's submit is always read before its events.)
        p.put(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, StreamsConfig.MAX_TASK_IDLE_MS_DISABLED);
        // Kafka 5 turns it on; the topology has no global store, so this changes nothing but the WARN every
        // Streams client printed at start ("Processing exception handler is not enabled for the GlobalThread")
        p.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, true);
        return p;
    }

    /**
     * Stream threads on a machine with this many processors. Two let one stage's transaction commit pass while the
     * other's waits, but on two cores (the one-machine stack, where the broker's JVM shares them) the second
     * thread took CPU from the pool's one placer task: with one thread, `gpupool bench pipeline --find-max
     * --repeat 3` on the 2-core machine held 2,850-3,300 requests/s at p99 250 ms against 1,450-2,850 with two
     * (scheduler-stream/README.md, Benchmark). A caller's num.stream.threads still wins.
     */
    public static int streamThreads(final int processors) {
        return processors <= 2 ? 1 : 2;
    }

    /** The local profile's stream threads on this machine. */
    public static int streamThreadsHere() {
        return streamThreads(Runtime.getRuntime().availableProcessors());
    }

    /** The settings that make the scheduler's producers write with this codec (one of {@link #CODECS}). */
    public static Properties compression(final String codec) {
        final String c = codec.trim().toLowerCase(Locale.ROOT);
        if (!CODECS.contains(c)) {
            throw new IllegalArgumentException("unknown compression '" + codec + "'; use one of " + String.join(", ", CODECS)
                    + " (only none and gzip are read by every common client: kafkajs has no lz4, snappy or zstd)");
        }
        final Properties p = new Properties();
        p.put(StreamsConfig.producerPrefix(ProducerConfig.COMPRESSION_TYPE_CONFIG), c);
        return p;
    }

    /** The production profile's settings (3 brokers, RF 3, min ISR 2, standby replicas). */
    public static Properties productionProfile() {
        final Properties p = new Properties();
        try (InputStream in = StreamsSettings.class.getResourceAsStream(PRODUCTION_PROFILE)) {
            if (in == null) {
                throw new IllegalStateException(PRODUCTION_PROFILE + " is missing from the classpath");
            }
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p;
    }

    /** {@code base} with {@code overrides} on top. */
    public static Properties merge(final Properties base, final Map<?, ?> overrides) {
        final Properties p = new Properties();
        p.putAll(base);
        p.putAll(overrides);
        return p;
    }
}
