package io.gpupool.sink;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Sends a record the sink cannot use to gpupool.dlq: the original key and bytes untouched, the
 * original headers, and headers saying where it came from and what was wrong, so it can be found,
 * fixed and replayed.
 */
public final class DeadLetterQueue {

    public static final String SOURCE_TOPIC = "gpupool.dlq.source.topic";
    public static final String SOURCE_PARTITION = "gpupool.dlq.source.partition";
    public static final String SOURCE_OFFSET = "gpupool.dlq.source.offset";
    public static final String ERROR_CLASS = "gpupool.dlq.error.class";
    public static final String ERROR_MESSAGE = "gpupool.dlq.error.message";
    public static final String CONSUMER = "gpupool.dlq.consumer";

    private final Producer<byte[], byte[]> producer;
    private final String topic;
    private final String consumerName;

    public DeadLetterQueue(final Producer<byte[], byte[]> producer, final String topic, final String consumerName) {
        this.producer = producer;
        this.topic = topic;
        this.consumerName = consumerName;
    }

    public void send(final ConsumerRecord<byte[], byte[]> record, final Exception error) {
        final Headers headers = new RecordHeaders(record.headers().toArray());
        headers.add(SOURCE_TOPIC, bytes(record.topic()));
        headers.add(SOURCE_PARTITION, bytes(Integer.toString(record.partition())));
        headers.add(SOURCE_OFFSET, bytes(Long.toString(record.offset())));
        headers.add(ERROR_CLASS, bytes(error.getClass().getName()));
        headers.add(ERROR_MESSAGE, bytes(String.valueOf(error.getMessage())));
        headers.add(CONSUMER, bytes(consumerName));
        producer.send(new ProducerRecord<>(topic, null, record.key(), record.value(), headers));
    }

    public void flush() {
        producer.flush();
    }

    private static byte[] bytes(final String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
