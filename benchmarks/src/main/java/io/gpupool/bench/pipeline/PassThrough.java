package io.gpupool.bench.pipeline;

import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;

/** The ceiling: a Streams app with the scheduler's configuration that copies bytes from one topic to another. */
final class PassThrough {
    private PassThrough() {
    }

    static KafkaStreams start(final Properties config, final String from, final String to) {
        final StreamsBuilder b = new StreamsBuilder();
        b.stream(from, Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()))
                .to(to, Produced.with(Serdes.ByteArray(), Serdes.ByteArray()));
        final KafkaStreams s = new KafkaStreams(b.build(), config);
        s.start();
        return s;
    }
}
