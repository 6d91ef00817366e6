package io.gpupool.bench.pipeline;

import io.gpupool.avro.JobCommand;
import io.gpupool.avro.NodeInventory;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.journal.Codecs;
import io.gpupool.scheduler.app.SchedulerApp;
import io.gpupool.scheduler.journal.TopicNames;
import io.gpupool.topics.TopicCatalog;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The scheduler's own ceiling, measured like the pass-through's: a backlog of 1-GPU job requests
 * produced at once into a fresh scheduler holding the bench pool, timed from the first decision read back
 * (read_committed) to the last first decision, over the whole backlog. The pool fills after 32,768 jobs
 * and the rest queue, so this is decisions per second through both stages with a queue building, not
 * the steady state of the paced run; no telemetry flows, as none does through the pass-through.
 */
final class SchedulerDrain {
    private SchedulerDrain() {
    }

    static void run(final PipelineBenchOptions o, final String prefix, final TopicCatalog catalog, final Codecs codecs,
                    final Properties producerConfig, final Properties consumerConfig, final Map<String, String> figures,
                    final PrintStream progress) throws Exception {
        final TopicNames topics = TopicNames.of(catalog);
        final int records = o.drainRecords();
        try (SchedulerApp app = SchedulerApp.start(PipelineBench.schedulerOptions(o, prefix, catalog)
                .withShedJournalBacklog(0));
             KafkaProducer<String, NodeInventory> inv = new KafkaProducer<>(producerConfig, new StringSerializer(),
                     codecs.serializer());
             KafkaProducer<String, JobCommand> jobs = new KafkaProducer<>(producerConfig, new StringSerializer(),
                     codecs.serializer());
             KafkaConsumer<String, PlacementDecision> decisions = new KafkaConsumer<>(consumerConfig,
                     new StringDeserializer(), codecs.deserializer(PlacementDecision.class))) {
            if (!app.awaitRunning(Duration.ofMinutes(2))) {
                throw new IllegalStateException("the drain scheduler did not start: " + app.streams().state());
            }
            PipelineBench.publishPool(o, inv, topics, app.engines(), progress);
            decisions.subscribe(List.of(topics.decisions()));
            progress.printf("bench: scheduler drain of a backlog of %d job records%n", records);
            final CheckedSends sends = new CheckedSends();
            for (int i = 0; i < records; i++) {
                final String id = PipelineBench.jobId(i);
                jobs.send(new ProducerRecord<>(topics.jobs(), id, BenchFabric.submit(PipelineBench.POOL, id, 1)), sends);
            }
            sends.flushAndCount(jobs);
            final boolean[] decided = new boolean[records];
            final WholeBacklog timing = new WholeBacklog("drain", records, progress);
            while (!timing.done()) {
                long firsts = 0;
                for (final ConsumerRecord<String, PlacementDecision> r : decisions.poll(Duration.ofMillis(50))) {
                    final int seq = PipelineBench.seqOf(r.key());
                    if (seq >= 0 && seq < records && !decided[seq]) {
                        decided[seq] = true;
                        firsts++;
                    }
                }
                timing.add(firsts);
            }
            figures.put("drain_requests_per_s", timing.perSecond());
            figures.put("drain_records", Integer.toString(records));
        }
    }
}
