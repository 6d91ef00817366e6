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

    private static final int ATTEMPTS = 6;
    private static final long FIRST_BACKOFF_MILLIS = 200;

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
        publish(event, () -> { });
    }

    /** Sends the event; {@code onDelivered} runs (on the producer's thread) once Kafka has acknowledged it. */
    public void publish(final JobEvent event, final Runnable onDelivered) {
        long backoff = FIRST_BACKOFF_MILLIS;
        for (int attempt = 1; ; attempt++) {
            try {
                producer.send(new ProducerRecord<>(topic, event.getJobId(), event), (meta, error) -> {
                    if (error != null) {
                        // The idempotent producer has already retried delivery for delivery.timeout.ms.
                        LOG.error("could not send job event {} for {}: {}", event.getEventId(), event.getJobId(),
                                error.toString());
                    } else {
                        onDelivered.run();
                    }
                });
                break;
            } catch (final RuntimeException e) {
                // Thrown before sending: the serializer could not reach the registry, or metadata timed out.
                if (attempt >= ATTEMPTS) {
                    LOG.error("giving up on job event {} for {} after {} attempts: {}", event.getEventId(),
                            event.getJobId(), attempt, e.toString());
                    return;
                }
                LOG.warn("job event {} not sent yet ({}); retrying", event.getEventId(), e.toString());
                try {
                    Thread.sleep(backoff);
                } catch (final InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
                backoff = Math.min(backoff * 2, 5_000L);
            }
        }
        onSent.accept(event);
    }

    public void flush() {
        producer.flush();
    }
}
