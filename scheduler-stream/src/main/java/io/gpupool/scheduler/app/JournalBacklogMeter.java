package io.gpupool.scheduler.app;

import io.gpupool.scheduler.stream.JournalBacklog;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Measures the placer's backlog for {@link JournalBacklog}: per journal partition, the committed end of the
 * journal (read_committed: what the placer can read) less the offset the application has committed there (what
 * it has applied, committed with its outputs). Both come from the broker, so an instance measures partitions
 * whose placer runs on another instance too. A partition the application has not committed on yet counts as
 * none waiting: a new application id reading an old journal is replaying, not overloaded. A measurement that
 * fails is logged (at most once a minute) and the backlog goes stale, which sheds nothing.
 */
final class JournalBacklogMeter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(JournalBacklogMeter.class);
    static final long EVERY_MS = 200;
    private static final long TIMEOUT_MS = 1_000;
    private static final int DESCRIBE_EVERY = 150;

    private final Admin admin;
    private final String applicationId;
    private final String journal;
    private final JournalBacklog backlog;
    private final MeterRegistry meters;
    /** One gauge per partition, made at its first measurement (only the measuring thread touches the map). */
    private final Map<Integer, AtomicLong> gauges = new HashMap<>();
    private final ScheduledExecutorService every = Executors.newSingleThreadScheduledExecutor(r -> {
        final Thread t = new Thread(r, "gpupool-journal-backlog");
        t.setDaemon(true);
        return t;
    });
    private long lastWarnedMs;
    /** The journal's partitions, described again every {@link #DESCRIBE_EVERY} measurements. */
    private int partitions;
    private long measures;

    JournalBacklogMeter(final Admin admin, final String applicationId, final String journal, final JournalBacklog backlog,
                        final MeterRegistry meters) {
        this.admin = admin;
        this.applicationId = applicationId;
        this.journal = journal;
        this.backlog = backlog;
        this.meters = meters;
    }

    /** Measures every {@link #EVERY_MS} until closed. */
    JournalBacklogMeter start() {
        every.scheduleWithFixedDelay(() -> {
            try {
                measure();
            } catch (final Exception e) {
                final long now = System.currentTimeMillis();
                if (now - lastWarnedMs > 60_000) {
                    lastWarnedMs = now;
                    LOG.warn("journal backlog not measured (nothing is shed while it is unknown): {}", e.toString());
                }
            }
        }, 0, EVERY_MS, TimeUnit.MILLISECONDS);
        return this;
    }

    @Override
    public void close() {
        every.shutdownNow();
        admin.close(Duration.ofSeconds(5));
    }

    /** One measurement, handed to the backlog and the gauges; throws when the broker does not answer in time. */
    void measure() throws Exception {
        if (partitions == 0 || ++measures % DESCRIBE_EVERY == 0) { // partitions are added rarely: not every 200 ms
            partitions = admin.describeTopics(List.of(journal)).allTopicNames()
                    .get(TIMEOUT_MS, TimeUnit.MILLISECONDS).get(journal).partitions().size();
        }
        final Map<TopicPartition, OffsetSpec> ends = new TreeMap<>(Comparator.comparingInt(TopicPartition::partition));
        for (int p = 0; p < partitions; p++) {
            ends.put(new TopicPartition(journal, p), OffsetSpec.latest());
        }
        final Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> end = admin
                .listOffsets(ends, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all()
                .get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
        final Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(applicationId)
                .partitionsToOffsetAndMetadata().get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
        final Map<Integer, Long> waiting = new TreeMap<>();
        for (final TopicPartition tp : ends.keySet()) {
            final OffsetAndMetadata at = committed.get(tp);
            final long entries = at == null ? 0 : Math.max(0, end.get(tp).offset() - at.offset());
            waiting.put(tp.partition(), entries);
            gauges.computeIfAbsent(tp.partition(), p -> {
                final AtomicLong g = new AtomicLong();
                Gauge.builder("gpupool.journal.backlog.entries", g, AtomicLong::get)
                        .description("Journal entries the placer has not applied, per journal partition, as last measured")
                        .tag("partition", Integer.toString(p)).register(meters);
                return g;
            }).set(entries);
        }
        backlog.measured(waiting);
    }
}
