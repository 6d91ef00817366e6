package io.gpupool.bench.pipeline;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.NodeInventory;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.journal.Codecs;
import io.gpupool.scheduler.app.SchedulerApp;
import io.gpupool.scheduler.journal.TopicNames;
import io.gpupool.topics.TopicCatalog;
import java.io.PrintStream;
import java.time.Duration;
import java.util.BitSet;
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
 * produced at once into a fresh scheduler holding the bench pool, over the whole backlog, read back
 * read_committed. No telemetry flows, as none does through the pass-through. Two kinds:
 * <ul>
 *   <li>{@link #firstDecisions}: timed from the first decision read back to the last first decision. The pool
 *   fills after 32,768 jobs and the rest queue, so this is decisions per second through both stages with a
 *   queue building, not the steady state of the paced run.</li>
 *   <li>{@link #lifecycles}: the bench is the sink, as in the paced run, and reports each placed job COMPLETED as
 *   soon as it reads its PLACED; timed from the first RELEASED to the last job's end. A request is then the paced
 *   run's whole job life (submit, PLACED, COMPLETED, RELEASED), twice a first decision's work or more, so this is
 *   the ceiling to hold a paced rate against. Past the pool's size the jobs queue and each release starts a
 *   waiting one: the queue is deepest at the start (the backlog less the pool) and drains to none.</li>
 * </ul>
 */
final class SchedulerDrain {
    private SchedulerDrain() {
    }

    /** {@code drain_requests_per_s}: first decisions of the backlog's requests per second. */
    static void firstDecisions(final PipelineBenchOptions o, final String prefix, final TopicCatalog catalog, final Codecs codecs,
                               final Properties producerConfig, final Properties consumerConfig,
                               final Map<String, String> figures, final PrintStream progress) throws Exception {
        final double perS = run(o, prefix, catalog, codecs, producerConfig, consumerConfig, false, progress);
        figures.put("drain_requests_per_s", WholeBacklog.format(perS));
        figures.put("drain_records", Integer.toString(o.drainRecords()));
    }

    /** {@code drain_lifecycle_requests_per_s}: the backlog's jobs run to their end (RELEASED) per second. */
    static void lifecycles(final PipelineBenchOptions o, final String prefix, final TopicCatalog catalog, final Codecs codecs,
                           final Properties producerConfig, final Properties consumerConfig,
                           final Map<String, String> figures, final PrintStream progress) throws Exception {
        final double perS = run(o, prefix, catalog, codecs, producerConfig, consumerConfig, true, progress);
        figures.put("drain_lifecycle_requests_per_s", WholeBacklog.format(perS));
    }

    private static double run(final PipelineBenchOptions o, final String prefix, final TopicCatalog catalog,
                              final Codecs codecs, final Properties producerConfig, final Properties consumerConfig,
                              final boolean lifecycle, final PrintStream progress) throws Exception {
        final TopicNames topics = TopicNames.of(catalog);
        final int records = o.drainRecords();
        try (SchedulerApp app = SchedulerApp.start(PipelineBench.schedulerOptions(o, prefix, catalog)
                .withShedJournalBacklog(0));
             KafkaProducer<String, NodeInventory> inv = new KafkaProducer<>(producerConfig, new StringSerializer(),
                     codecs.serializer());
             KafkaProducer<String, JobCommand> jobs = new KafkaProducer<>(producerConfig, new StringSerializer(),
                     codecs.serializer());
             KafkaProducer<String, JobEvent> events = new KafkaProducer<>(producerConfig, new StringSerializer(),
                     codecs.serializer());
             KafkaConsumer<String, PlacementDecision> decisions = new KafkaConsumer<>(consumerConfig,
                     new StringDeserializer(), codecs.deserializer(PlacementDecision.class))) {
            if (!app.awaitRunning(Duration.ofMinutes(2))) {
                throw new IllegalStateException("the drain scheduler did not start: " + app.streams().state());
            }
            PipelineBench.publishPool(o, inv, topics, app.engines(), progress);
            decisions.subscribe(List.of(topics.decisions()));
            final String what = lifecycle ? "lifecycle drain" : "drain";
            progress.printf("bench: scheduler %s of a backlog of %d job records%n", what, records);
            final CheckedSends sends = new CheckedSends();
            for (int i = 0; i < records; i++) {
                final String id = PipelineBench.jobId(i);
                jobs.send(new ProducerRecord<>(topics.jobs(), id, BenchFabric.submit(PipelineBench.POOL, id, 1)), sends);
            }
            sends.flushAndCount(jobs);
            final BitSet counted = new BitSet(records);
            final WholeBacklog timing = new WholeBacklog(what, records, progress);
            while (!timing.done()) {
                long ends = 0;
                for (final ConsumerRecord<String, PlacementDecision> r : decisions.poll(Duration.ofMillis(50))) {
                    final int seq = PipelineBench.seqOf(r.key());
                    if (seq < 0 || seq >= records || counted.get(seq)) {
                        continue;
                    }
                    final DecisionOutcome outcome = r.value().getOutcome();
                    if (lifecycle && outcome == DecisionOutcome.PLACED) {
                        events.send(new ProducerRecord<>(topics.jobEvents(), r.key(),
                                BenchFabric.completed(r.key(), r.value().getDecisionId(), System.currentTimeMillis())), sends);
                    }
                    if (!lifecycle || outcome == DecisionOutcome.RELEASED || outcome == DecisionOutcome.REJECTED) {
                        counted.set(seq);
                        ends++;
                    }
                }
                sends.check();
                timing.add(ends);
            }
            if (lifecycle) {
                sends.flushAndCount(events);
            }
            return timing.perSecond();
        }
    }
}
