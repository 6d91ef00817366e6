package io.gpupool.cli.workload;

import io.gpupool.avro.JobCommand;
import io.gpupool.serde.AvroSerdeConfig;
import io.gpupool.serde.SpecificAvroSerde;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

/** Produces JobCommands to gpupool.jobs, keyed by job id, idempotently (a retried send is not doubled). */
public final class JobCommandProducer implements AutoCloseable {

    private final Producer<String, JobCommand> producer;
    private final String topic;

    /** @param client Kafka client properties (bootstrap servers, security) */
    public JobCommandProducer(final Properties client, final String registryUrl, final String topic) {
        final Map<String, Object> serde = AvroSerdeConfig.forClient(client, registryUrl);
        final Properties p = new Properties();
        p.putAll(client);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "15000");
        this.producer = new KafkaProducer<>(p, new StringSerializer(),
                SpecificAvroSerde.forValues(JobCommand.class, serde).serializer());
        this.topic = topic;
    }

    /** Over a given producer (a MockProducer in tests: no broker). */
    JobCommandProducer(final Producer<String, JobCommand> producer, final String topic) {
        this.producer = producer;
        this.topic = topic;
    }

    public Future<RecordMetadata> send(final JobCommand command) {
        return producer.send(new ProducerRecord<>(topic, command.getJobId(), command));
    }

    /** Sends without waiting; {@code done} hears the result on the producer's thread. */
    public void send(final JobCommand command, final Callback done) {
        producer.send(new ProducerRecord<>(topic, command.getJobId(), command), done);
    }

    /** Sends and waits until the broker has it; the error says why when it does not. */
    public RecordMetadata sendAndWait(final JobCommand command) throws InterruptedException {
        try {
            return send(command).get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("could not produce to " + topic + ": " + e.getCause().getMessage(), e.getCause());
        }
    }

    public void flush() {
        producer.flush();
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(10));
    }
}
