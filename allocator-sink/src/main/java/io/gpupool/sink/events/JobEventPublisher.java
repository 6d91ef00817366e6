package io.gpupool.sink.events;

import io.gpupool.avro.JobEvent;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends JobEvents to gpupool.job-events keyed by job id (so all events of a job stay in order on
 * one partition). Sends are asynchronous; {@link #flush} is called before the sink commits its
 * consumer offsets, so a committed command's events are in Kafka.
 */
public final class JobEventPublisher {

    private static final Logger LOG = LoggerFactory.getLogger(JobEventPublisher.class);

    private final Producer<String, JobEvent> producer;
    private final String topic;
    private final Consumer<JobEvent> onSent;

    /** @param onSent called for every event handed to the producer (listeners, metrics) */
    public JobEventPublisher(final Producer<String, JobEvent> producer, final String topic,
                             final Consumer<JobEvent> onSent) {
        this.producer = producer;
        this.topic = topic;
        this.onSent = onSent;
    }

    public void publish(final JobEvent event) {
        producer.send(new ProducerRecord<>(topic, event.getJobId(), event), (meta, error) -> {
            if (error != null) {
                // The idempotent producer has already retried; the scheduler will see the job as stale.
                LOG.error("could not send job event {} for {}: {}", event.getEventId(), event.getJobId(), error.toString());
            }
        });
        onSent.accept(event);
    }

    public void flush() {
        producer.flush();
    }
}
