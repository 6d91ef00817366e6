package io.gpupool.bench.pipeline;

import io.gpupool.bench.BenchTopics;
import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.NodeInventory;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.app.SchedulerApp;
import io.gpupool.scheduler.journal.Codecs;
import io.gpupool.scheduler.journal.TopicNames;
import io.gpupool.scheduler.stream.SchedulerOptions;
import io.gpupool.serde.AvroSerdeConfig;
import io.gpupool.topics.TopicCatalog;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A long run: {@code --jobs} jobs submitted and finished through both stages of a scheduler on a live
 * broker, at most {@code --in-flight} at once; the bench is the sink and completes each placed job at
 * once. The engine's finished-job retention is short, so the job book and the decision history expire
 * all the time. Every {@code --report-every} finished jobs it prints live jobs, the scheduler's state
 * directory on disk, heap after GC and DLQ records: bounded state means these stay flat.
 */
public final class SoakBench {
    private static final String POOL = PipelineBench.POOL;

    private SoakBench() {
    }

    public static Map<String, String> run(final SoakBenchOptions o, final PrintStream progress) throws Exception {
        final String prefix = BenchTopics.runPrefix("soak");
        final TopicCatalog catalog = BenchTopics.catalog(prefix);
        final TopicNames topics = TopicNames.of(catalog);
        final Codecs codecs = new Codecs(AvroSerdeConfig.registry(AvroSerdeConfig.forClient(o.clientOverrides(),
                o.registryUrl())), true);
        final Path stateDir = Files.createDirectories(o.stateDir().resolve(prefix + "-scheduler"));
        final Map<String, String> engine = Map.of("finished-job-retention-ms", Long.toString(o.retentionMs()),
                "stale-telemetry-timeout-ms", "0"); // the bench sends no telemetry
        final SchedulerOptions so = new SchedulerOptions(prefix + "-scheduler", o.bootstrapServers(), o.registryUrl(),
                o.clientOverrides(), false, stateDir, "", 0, engine, SchedulerOptions.DEFAULT_SNAPSHOT_EVERY,
                SchedulerOptions.DEFAULT_TICK_INTERVAL_MS, catalog);
        final Map<String, String> figures = new LinkedHashMap<>();
        try (SchedulerApp app = SchedulerApp.start(so);
             KafkaProducer<String, NodeInventory> inv = new KafkaProducer<>(PipelineBench.producerConfig(
                     o.bootstrapServers(), o.clientOverrides()), new StringSerializer(), codecs.serializer());
             KafkaProducer<String, JobCommand> jobs = new KafkaProducer<>(PipelineBench.producerConfig(
                     o.bootstrapServers(), o.clientOverrides()), new StringSerializer(), codecs.serializer());
             KafkaProducer<String, JobEvent> events = new KafkaProducer<>(PipelineBench.producerConfig(
                     o.bootstrapServers(), o.clientOverrides()), new StringSerializer(), codecs.serializer());
             KafkaConsumer<String, PlacementDecision> decisions = new KafkaConsumer<>(PipelineBench.consumerConfig(
                     o.bootstrapServers(), o.clientOverrides(), prefix + "-sink"), new StringDeserializer(),
                     codecs.deserializer(PlacementDecision.class));
             KafkaConsumer<byte[], byte[]> dlq = new KafkaConsumer<>(PipelineBench.consumerConfig(
                     o.bootstrapServers(), o.clientOverrides(), prefix + "-dlq"), new ByteArrayDeserializer(),
                     new ByteArrayDeserializer())) {
            if (!app.awaitRunning(Duration.ofMinutes(2))) {
                throw new IllegalStateException("the scheduler did not start: " + app.streams().state());
            }
            for (int n = 0; n < o.nodes(); n++) {
                inv.send(new ProducerRecord<>(topics.inventory(), PipelineBench.nodeId(n),
                        BenchFabric.node(POOL, n, o.gpusPerNode(), o.leaves())));
            }
            inv.flush();
            PipelineBench.awaitGpus(app.engines(), (long) o.nodes() * o.gpusPerNode(), progress);
            decisions.subscribe(List.of(topics.decisions()));
            progress.printf("soak: %d jobs, at most %d in flight, finished-job retention %d ms of stream time%n",
                    o.jobs(), o.inFlight(), o.retentionMs());
            final long start = System.currentTimeMillis();
            long submitted = 0;
            long finished = 0;
            long nextProgress = o.progressEvery();
            long nextReport = o.reportEvery();
            while (finished < o.jobs()) {
                while (submitted < o.jobs() && submitted - finished < o.inFlight()) {
                    final String id = PipelineBench.jobId((int) submitted++);
                    jobs.send(new ProducerRecord<>(topics.jobs(), null, System.currentTimeMillis(), id,
                            BenchFabric.submit(POOL, id, 1)));
                }
                for (final ConsumerRecord<String, PlacementDecision> r : decisions.poll(Duration.ofMillis(20))) {
                    final PlacementDecision d = r.value();
                    if (d.getOutcome() == DecisionOutcome.PLACED) {
                        final long now = System.currentTimeMillis();
                        events.send(new ProducerRecord<>(topics.jobEvents(), null, now, r.key(), JobEvent.newBuilder()
                                .setJobId(r.key()).setEventId("done-" + r.key()).setType(JobEventType.COMPLETED)
                                .setPlacementId(d.getDecisionId()).setOccurredAt(Instant.ofEpochMilli(now)).build()));
                    } else if (d.getOutcome() == DecisionOutcome.RELEASED || d.getOutcome() == DecisionOutcome.REJECTED
                            || d.getOutcome() == DecisionOutcome.CANCELLED) {
                        finished++;
                    }
                }
                if (finished >= nextProgress) {
                    nextProgress += o.progressEvery();
                    progress.printf(Locale.ROOT, "soak: t=%ds finished=%d live=%d%n",
                            (System.currentTimeMillis() - start) / 1000, finished, submitted - finished);
                }
                if (finished >= nextReport || finished >= o.jobs()) {
                    nextReport += o.reportEvery();
                    final String line = report(finished, submitted - finished, stateDir, dlq, topics.dlq());
                    progress.println("soak: " + line);
                    figures.put("at_" + finished, line);
                }
            }
            figures.put("jobs_per_s", String.format(Locale.ROOT, "%.0f",
                    finished * 1000.0 / Math.max(1, System.currentTimeMillis() - start)));
        } finally {
            BenchTopics.delete(o.bootstrapServers(), o.clientOverrides(), prefix, progress);
        }
        return figures;
    }

    private static String report(final long finished, final long live, final Path stateDir,
                                 final KafkaConsumer<byte[], byte[]> dlq, final String dlqTopic) {
        System.gc();
        final long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        return String.format(Locale.ROOT, "jobs=%d live=%d state_bytes=%d heap_after_gc_bytes=%d dlq_records=%d",
                finished, live, bytesUnder(stateDir), heap, records(dlq, dlqTopic));
    }

    /** The scheduler's state directory on disk (RocksDB files, checkpoints); a walk that races a compaction is retried. */
    private static long bytesUnder(final Path dir) {
        for (int attempt = 1; ; attempt++) {
            try {
                return walk(dir);
            } catch (UncheckedIOException e) {
                if (attempt == 3) {
                    throw e;
                }
            }
        }
    }

    private static long walk(final Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(f -> {
                try {
                    return Files.size(f);
                } catch (IOException e) {
                    return 0; // a file RocksDB just removed
                }
            }).sum();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long records(final KafkaConsumer<byte[], byte[]> consumer, final String topic) {
        if (!consumer.listTopics().containsKey(topic)) {
            return 0;
        }
        final List<TopicPartition> parts = consumer.partitionsFor(topic).stream()
                .map(p -> new TopicPartition(topic, p.partition())).toList();
        long n = 0;
        for (final Map.Entry<TopicPartition, Long> e : consumer.endOffsets(parts).entrySet()) {
            n += e.getValue() - consumer.beginningOffsets(List.of(e.getKey())).get(e.getKey());
        }
        return n;
    }
}
