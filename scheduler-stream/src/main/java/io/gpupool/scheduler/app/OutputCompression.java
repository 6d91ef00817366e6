package io.gpupool.scheduler.app;

import io.gpupool.scheduler.stream.StreamsSettings;
import io.gpupool.topics.Topic;
import io.gpupool.topics.TopicCatalog;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The codec the scheduler's producers write with when the caller names none. One producer per stream thread
 * writes every topic, so the codec cannot differ per topic there; it can on the broker. gpupool creates the
 * topics other clients read (decisions, node commands, the DLQ) with {@code compression.type=gzip}: the broker
 * stores them as gzip whatever the producer sent, and kafkajs, which has only gzip built in, reads them. Then
 * the scheduler writes lz4 ({@link StreamsSettings#FAST_COMPRESSION}), several times cheaper per byte than
 * gzip on its own thread: a 4,096-node pool's snapshot (3-19 MB in the bench, written to its changelog and to the
 * snapshot topic) stopped the placer 0.5-1.3 s through gzip and 0.1-0.3 s through lz4 on the 2-core bench machine.
 *
 * <p>A topic created before, or by hand, keeps the producer's codec ({@code compression.type=producer}); an
 * lz4 batch there would be unreadable by kafkajs, so the scheduler then writes gzip everywhere and says which
 * topics to change. The same when it may not read topic configs (no DescribeConfigs right).
 */
final class OutputCompression {
    private static final Logger LOG = LoggerFactory.getLogger(OutputCompression.class);
    private static final String PRODUCER_CODEC = StreamsConfig.producerPrefix(ProducerConfig.COMPRESSION_TYPE_CONFIG);

    private OutputCompression() {
    }

    /** True when the caller's client settings name a codec: it is theirs, and nothing here is checked. */
    static boolean chosenByCaller(final Properties clientOverrides) {
        return clientOverrides.containsKey(PRODUCER_CODEC) || clientOverrides.containsKey(ProducerConfig.COMPRESSION_TYPE_CONFIG);
    }

    /**
     * The producer codec setting for this cluster: the fast default when every topic others read is re-encoded
     * by the broker into a codec they all read, else gzip (with a warning naming the topics and the fix).
     */
    static Properties choose(final Admin admin, final TopicCatalog catalog, final String bootstrap) {
        final List<String> names = new ArrayList<>();
        final List<ConfigResource> topics = new ArrayList<>();
        for (final Topic t : TopicCatalog.READ_BY_ANY_CLIENT) {
            names.add(catalog.name(t));
            topics.add(new ConfigResource(ConfigResource.Type.TOPIC, catalog.name(t)));
        }
        final List<String> keepProducerCodec = new ArrayList<>();
        try {
            final Map<ConfigResource, Config> configs = admin.describeConfigs(topics).all().get(60, TimeUnit.SECONDS);
            for (final ConfigResource r : topics) {
                final ConfigEntry e = configs.get(r).get(TopicConfig.COMPRESSION_TYPE_CONFIG);
                // a topic with a codec of its own (gzip, or one its operator chose) is re-encoded by the broker
                if (e == null || "producer".equals(e.value())) {
                    keepProducerCodec.add(r.name());
                }
            }
        } catch (final ExecutionException | TimeoutException e) {
            LOG.warn("cannot read the compression.type of {} on {} ({}); the scheduler writes gzip, which every client reads",
                    names, bootstrap, e.getCause() == null ? e.toString() : e.getCause().getMessage());
            return StreamsSettings.compression(StreamsSettings.READABLE_EVERYWHERE_COMPRESSION);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        if (!keepProducerCodec.isEmpty()) {
            LOG.warn("topics {} keep the producer's codec (compression.type=producer), so the scheduler writes gzip for "
                    + "kafkajs; `kafka-configs --bootstrap-server {} --alter --entity-type topics --entity-name TOPIC "
                    + "--add-config compression.type=gzip` on each lets it write {}, cheaper on its own threads",
                    keepProducerCodec, bootstrap, StreamsSettings.FAST_COMPRESSION);
            return StreamsSettings.compression(StreamsSettings.READABLE_EVERYWHERE_COMPRESSION);
        }
        return StreamsSettings.compression(StreamsSettings.FAST_COMPRESSION);
    }
}
