package io.gpupool.collector.publish;

import io.gpupool.avro.GpuSamples;
import io.gpupool.avro.LinkSamples;
import io.gpupool.avro.NodeInventory;
import io.gpupool.serde.AvroSerdeConfig;
import io.gpupool.serde.SpecificAvroSerializer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes inventory and samples through one batched, idempotent, compressed producer.
 *
 * <p>Between the collector and the producer sits a bounded buffer, because a producer that cannot
 * reach Kafka blocks or fails on {@code send} and a collector must keep polling. When the buffer is
 * full the oldest telemetry is dropped (a fresh sample is worth more than an old one) and counted.
 * Inventory is never dropped: only the latest per node is kept, outside the bounded buffer, since
 * the inventory topic is compacted and only the latest matters.
 */
public final class TelemetryPublisher implements RecordSink, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TelemetryPublisher.class);
    private static final int MAX_ENCODE_ATTEMPTS = 3;

    private final Producer<String, SpecificRecord> producer;
    private final PublisherTopics topics;
    private final int capacity;
    private final Deque<ProducerRecord<String, SpecificRecord>> telemetry = new ArrayDeque<>();
    private final Map<String, ProducerRecord<String, SpecificRecord>> inventory = new LinkedHashMap<>();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong inFlight = new AtomicLong();
    private final Thread sender;
    private volatile boolean running = true;
    private volatile long pauseUntilNanos;

    public TelemetryPublisher(final Producer<String, SpecificRecord> producer, final PublisherTopics topics,
            final int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("buffer capacity must be at least 1 record, got " + capacity);
        }
        this.producer = producer;
        this.topics = topics;
        this.capacity = capacity;
        this.sender = new Thread(this::sendLoop, "telemetry-publisher");
        this.sender.setDaemon(true);
        this.sender.start();
    }

    /** A node's publisher: idempotent, acks=all, zstd, small batches (a node sends a few records a second). */
    public static TelemetryPublisher connect(final String bootstrapServers, final String registryUrl,
            final PublisherTopics topics, final int capacity) {
        return connect(bootstrapServers, Map.of(), registryUrl, topics, capacity);
    }

    /** A node's publisher with the user's client settings (security, registry TLS and auth) over its own. */
    public static TelemetryPublisher connect(final String bootstrapServers, final Map<String, Object> clientProperties,
            final String registryUrl, final PublisherTopics topics, final int capacity) {
        final Properties p = producerConfig(bootstrapServers);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 32 * 1024);
        p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 4L * 1024 * 1024);
        return connect(p, clientProperties, registryUrl, topics, capacity);
    }

    /** A fleet's publisher: as a node's, with large batches and producer buffer for thousands of records a second. */
    public static TelemetryPublisher connectFleet(final String bootstrapServers, final Map<String, Object> clientProperties,
            final String registryUrl, final PublisherTopics topics, final int capacity) {
        return connect(producerConfig(bootstrapServers), clientProperties, registryUrl, topics, capacity);
    }

    private static TelemetryPublisher connect(final Properties p, final Map<String, Object> clientProperties,
            final String registryUrl, final PublisherTopics topics, final int capacity) {
        p.putAll(clientProperties);
        final Map<String, Object> serdeConfig = AvroSerdeConfig.forClient(p, registryUrl);
        final SpecificAvroSerializer<SpecificRecord> values = new SpecificAvroSerializer<>();
        values.configure(serdeConfig, false);
        return new TelemetryPublisher(new KafkaProducer<>(p, new StringSerializer(), values), topics, capacity);
    }

    public static Properties producerConfig(final String bootstrapServers) {
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "gpupool-collector");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "zstd");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 50);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 32L * 1024 * 1024);
        // send() must not hang the sender for long when Kafka is away; the bounded buffer holds on.
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 2_000);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000);
        // A node cut off from Kafka retries a few times a minute, not many times a second.
        p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 10_000);
        return p;
    }

    @Override
    public void publishInventory(final NodeInventory record) {
        synchronized (this) {
            inventory.put(record.getNodeId(), new ProducerRecord<>(topics.inventory(), record.getNodeId(), record));
            notifyAll();
        }
    }

    @Override
    public void publishGpu(final GpuSamples record) {
        enqueue(new ProducerRecord<>(topics.gpu(), record.getNodeId(), record));
    }

    @Override
    public void publishLink(final LinkSamples record) {
        enqueue(new ProducerRecord<>(topics.link(), record.getNodeId(), record));
    }

    private synchronized void enqueue(final ProducerRecord<String, SpecificRecord> record) {
        while (telemetry.size() >= capacity) {
            telemetry.pollFirst();
            dropped.incrementAndGet();
        }
        telemetry.addLast(record);
        notifyAll();
    }

    /**
     * Fetches the topics' metadata once, so the first interval does not pay for it (and a fleet of
     * thousands of nodes does not overflow the buffer while the producer connects).
     *
     * @return false when Kafka did not answer; the publisher still works and buffers meanwhile
     */
    public boolean awaitReady() {
        try {
            producer.partitionsFor(topics.inventory());
            producer.partitionsFor(topics.gpu());
            producer.partitionsFor(topics.link());
            return true;
        } catch (RuntimeException e) {
            LOG.warn("Kafka not ready yet ({}); publishing will buffer until it is", e.getMessage());
            return false;
        }
    }

    public PublisherStats stats() {
        synchronized (this) {
            return new PublisherStats(sent.get(), dropped.get(), telemetry.size() + inventory.size());
        }
    }

    /** Waits until everything buffered was handed to the producer and acknowledged, or the time is up. */
    public boolean flush(final Duration timeout) throws InterruptedException {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            synchronized (this) {
                if (telemetry.isEmpty() && inventory.isEmpty() && inFlight.get() <= 0) {
                    return true;
                }
            }
            producer.flush();
            Thread.sleep(10);
        }
        return false;
    }

    private void sendLoop() {
        int attempts = 0;
        while (running) {
            final long pause = pauseUntilNanos - System.nanoTime();
            if (pause > 0) {
                pause(pause / 1_000_000 + 1);
                continue;
            }
            final ProducerRecord<String, SpecificRecord> next;
            final boolean isInventory;
            synchronized (this) {
                while (running && telemetry.isEmpty() && inventory.isEmpty()) {
                    try {
                        wait(200);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (!running) {
                    return;
                }
                isInventory = !inventory.isEmpty();
                if (isInventory) {
                    final String node = inventory.keySet().iterator().next();
                    next = inventory.remove(node);
                } else {
                    next = telemetry.pollFirst();
                }
            }
            try {
                inFlight.incrementAndGet();
                producer.send(next, (meta, error) -> acknowledged(next, isInventory, error));
                attempts = 0;
            } catch (TimeoutException e) {
                inFlight.decrementAndGet();
                putBack(next, isInventory);
                LOG.debug("Kafka not reachable, {} record(s) buffered: {}", stats().buffered(), e.getMessage());
                pause(500);
            } catch (RuntimeException e) {
                inFlight.decrementAndGet();
                if (++attempts >= MAX_ENCODE_ATTEMPTS) {
                    LOG.warn("dropping a {} record for node {} after {} failed attempts: {}",
                            next.topic(), next.key(), attempts, e.getMessage());
                    dropped.incrementAndGet();
                    attempts = 0;
                } else {
                    putBack(next, isInventory);
                    pause(200L * attempts);
                }
            }
        }
    }

    private void acknowledged(final ProducerRecord<String, SpecificRecord> record, final boolean isInventory,
            final Exception error) {
        inFlight.decrementAndGet();
        if (error == null) {
            sent.incrementAndGet();
            return;
        }
        if (error instanceof RetriableException) {
            // Kafka away (no metadata in time, delivery timed out): keep the record in the bounded
            // buffer and let the sender pause, instead of spinning through the buffer failing.
            LOG.debug("Kafka not reachable for a {} record of node {}: {}", record.topic(), record.key(), error.getMessage());
            pauseUntilNanos = System.nanoTime() + 500_000_000L;
            putBack(record, isInventory);
            return;
        }
        LOG.warn("delivery of a {} record for node {} failed: {}", record.topic(), record.key(), error.getMessage());
        if (isInventory) {
            // kept for another try, but not at once: a lasting refusal (authorization, too large) must not spin
            pauseUntilNanos = System.nanoTime() + 5_000_000_000L;
            synchronized (this) {
                inventory.putIfAbsent(record.key(), record);
                notifyAll();
            }
        } else {
            dropped.incrementAndGet();
        }
    }

    private synchronized void putBack(final ProducerRecord<String, SpecificRecord> record, final boolean isInventory) {
        if (isInventory) {
            inventory.putIfAbsent(record.key(), record);
        } else if (telemetry.size() < capacity) {
            telemetry.addFirst(record);
        } else {
            dropped.incrementAndGet();
        }
    }

    private static void pause(final long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        running = false;
        synchronized (this) {
            notifyAll();
        }
        try {
            sender.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.close(Duration.ofSeconds(5));
    }
}
