package io.gpupool.topics;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.serde.RecordDecodeException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

class DeadLettersTest {

    @Test
    void keepsTheBytesAndNamesSourceAndError() {
        final RecordHeaders original = new RecordHeaders();
        original.add("trace-id", "abc".getBytes(StandardCharsets.UTF_8));
        final byte[] key = "n17".getBytes(StandardCharsets.UTF_8);
        final byte[] value = {0x7b, 0x7d};
        final ConsumerRecord<byte[], byte[]> refused = new ConsumerRecord<>("gpupool.inventory", 4, 1234L,
                1_700_000_000_000L, TimestampType.CREATE_TIME, 3, 2, key, value, original, Optional.empty());
        final RecordDecodeException error = new RecordDecodeException("gpupool.inventory", 4, 1234L,
                RecordDecodeException.Problem.WRONG_MAGIC_BYTE, -1, "first byte is 0x7b", null);

        final ProducerRecord<byte[], byte[]> dlq = DeadLetters.of("gpupool.dlq", refused, error, "scheduler");

        assertThat(dlq.topic()).isEqualTo("gpupool.dlq");
        assertThat(dlq.key()).isEqualTo(key);
        assertThat(dlq.value()).isEqualTo(value);
        assertThat(dlq.timestamp()).isEqualTo(1_700_000_000_000L);
        assertThat(DeadLetters.header(dlq.headers(), "trace-id")).isEqualTo("abc");
        assertThat(DeadLetters.header(dlq.headers(), DeadLetters.SOURCE_TOPIC)).isEqualTo("gpupool.inventory");
        assertThat(DeadLetters.header(dlq.headers(), DeadLetters.SOURCE_PARTITION)).isEqualTo("4");
        assertThat(DeadLetters.header(dlq.headers(), DeadLetters.SOURCE_OFFSET)).isEqualTo("1234");
        assertThat(DeadLetters.header(dlq.headers(), DeadLetters.ERROR_CLASS))
                .isEqualTo(RecordDecodeException.class.getName());
        assertThat(DeadLetters.header(dlq.headers(), DeadLetters.ERROR_MESSAGE)).contains("first byte is 0x7b");
        assertThat(DeadLetters.header(dlq.headers(), DeadLetters.ERROR_PROBLEM)).isEqualTo("WRONG_MAGIC_BYTE");
        assertThat(DeadLetters.header(dlq.headers(), DeadLetters.REFUSED_BY)).isEqualTo("scheduler");
        assertThat(DeadLetters.header(dlq.headers(), "missing")).isNull();
    }
}
