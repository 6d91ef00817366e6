package io.gpupool.scheduler.stream;

import java.util.Properties;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the scheduler writes must be readable by every common client: kafkajs has only gzip built in,
 * so neither profile may default to lz4, snappy or zstd; another codec is a deliberate choice.
 */
class OutputCompressionTest {
    private static final String KEY = StreamsConfig.producerPrefix(ProducerConfig.COMPRESSION_TYPE_CONFIG);

    @Test
    void bothProfilesWriteACodecKafkajsReads() {
        final Properties local = StreamsSettings.local("app", "127.0.0.1:9092", "/tmp/state");
        assertThat(local.get(KEY)).isEqualTo("gzip");
        final Properties production = StreamsSettings.merge(local, StreamsSettings.productionProfile());
        assertThat(production.get(KEY)).isIn("gzip", "none");
    }

    @Test
    void anotherCodecIsChosenByNameAndAnUnknownOneIsRefusedNamingTheChoices() {
        final Properties chosen = StreamsSettings.merge(StreamsSettings.local("app", "b:1", "/tmp/s"),
                StreamsSettings.compression(" LZ4 "));
        assertThat(chosen.get(KEY)).isEqualTo("lz4");
        assertThatThrownBy(() -> StreamsSettings.compression("brotli")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("none, gzip, snappy, lz4, zstd").hasMessageContaining("kafkajs");
    }
}
